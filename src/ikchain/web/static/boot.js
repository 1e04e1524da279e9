/* ikchain lesson page, first script: runs before the body is parsed.
 *
 * Marks the page as scripted ("js", so the "Script starting…" placeholder shows
 * instead of the no-script note's layout), and once everything has loaded checks
 * that lesson.js really started ("js-ready"): if it did not (the file failed to
 * load, or it threw), the page says so in its own language instead of promising a
 * start that will never come. An external file, so a Content-Security-Policy
 * without inline scripts allows it.
 */
(function () {
  "use strict";
  var doc = document.documentElement;
  doc.classList.remove("no-js");
  doc.classList.add("js");
  window.addEventListener("load", function () {
    if (!doc.classList.contains("js-ready")) doc.classList.add("js-failed");
  });
})();
