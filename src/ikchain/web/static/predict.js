/* "Predict, then press": the reader picks a guess, "Check" opens the solver's answer
 * and says whether the guess was the solver's choice. Both the answer and the right
 * choice come from the server (ikchain.lesson.predict, data-right); this script only
 * compares the picked index with it and opens the <details>. It computes nothing.
 */
(function () {
  "use strict";
  var LABELS = {};
  function attach() {
    var data = document.getElementById("lesson-data");
    if (data) LABELS = (JSON.parse(data.textContent).labels || {}).predict || {};
    document.querySelectorAll(".predict[data-right]").forEach(function (el) {
      var act = el.querySelector(".predict-act");
      var button = el.querySelector(".predict-check");
      var verdict = el.querySelector(".predict-verdict");
      var answer = el.querySelector(".predict-answer");
      act.hidden = false;
      button.addEventListener("click", function () {
        var picked = el.querySelector("input[type=radio]:checked");
        if (!picked) {
          verdict.textContent = LABELS.none || "";
          return;
        }
        var right = picked.value === el.getAttribute("data-right");
        el.setAttribute("data-verdict", right ? "right" : "wrong");
        verdict.textContent = right ? LABELS.right : LABELS.wrong;
        answer.open = true;
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach);
  else attach();
})();
