/* ikchain lesson page: the moving-target player (drawing only).
 *
 * The page has one player (2.6); other sections open it with a preset (a link with
 * data-motion-preset: 2.5's cold-started figure-of-eight), whose settings are the
 * server's (API.data.motions[id].presets). The player asks the server (kind "motion" on the frame channel) to track a preset
 * path with CCD, FABRIK and damped least squares, each frame on an iteration budget,
 * and plays back what comes back: every method's joints on every frame, its error
 * (formatted), the chart (SVG) and each frame's cursor position on it. Playing picks
 * the frame from the clock (60 frames a second); nothing here computes a position,
 * an angle, an error or a chart coordinate. The tip trail is the server's tips of the
 * last lap, up to the frame shown.
 *
 * One state, one update() that redraws every layer from it, the controls' values too.
 */
(function () {
  "use strict";

  var API = window.ikchainLesson;
  if (!API) return;
  var fill = API.fill;
  var pointsText = API.pointsText;
  var WORDS = (API.labels && API.labels.motion) || {};
  var METHOD_NAMES = (API.labels && API.labels.controls) || {};
  var FPS = 60;
  var SVGNS = "http://www.w3.org/2000/svg";
  var players = {};
  window.__ikchainMotions = players;


  function Player(el, spec) {
    this.el = el;
    this.id = el.id;
    this.spec = spec;
    this.svg = el.querySelector("svg.motion-figure");
    var q = this.svg.querySelector.bind(this.svg);
    this.layer = {
      inner: q(".reach-inner"), outer: q(".reach-outer"), path: q(".path"), trail: q(".trail"),
      bones: q(".bones"), joints: q(".joints"), tip: q(".tip"), ring: q(".target-ring"),
    };
    this.controls = el.querySelector(".motion-controls");
    this.statusEl = el.querySelector(".motion-status");
    this.chartEl = el.querySelector(".motion-chart");
    this.inflight = null;
    this.inflightBody = null;
    this.raf = null;
    var d = spec.defaults;
    this.state = {
      path: d.path, frames_per_lap: d.frames_per_lap, budget: d.budget, start: d.start,
      show: d.show, lengths: d.lengths,
      data: null, dataKey: null, frame: 0, playing: false, waiting: false, error: null,
      clock: null, // {t0, frame0} while playing
    };
    this.bind();
    this.controls.disabled = false;
  }

  // Open the player with preset `name` (the server's settings): its controls show
  // them (a folded one unfolds), and the player plays them from the first frame.
  Player.prototype.preset = function (name) {
    var p = this.spec.presets && this.spec.presets[name];
    if (!p) return false;
    var s = this.state;
    var more = this.el.querySelector(".motion-more");
    var self = this;
    ["path", "frames_per_lap", "budget", "start", "show"].forEach(function (k) {
      if (s[k] === p[k]) return;
      var control = self.controls.querySelector('[name="' + k + '"]');
      if (more && control && more.contains(control)) more.open = true;
    });
    s.path = p.path; s.frames_per_lap = p.frames_per_lap; s.budget = p.budget;
    s.start = p.start; s.show = p.show; s.lengths = p.lengths;
    this.pause();
    s.frame = 0;
    s.playing = true;
    if (!s.data || s.dataKey !== this.key()) this.request(); // a reply on its way is outdated
    else this.startClock();
    this.update();
    return true;
  };

  // What the server's answer depends on: when it changes, ask again.
  Player.prototype.key = function () {
    var s = this.state;
    return JSON.stringify([s.lengths, s.path, s.frames_per_lap, s.budget, s.start]);
  };

  Player.prototype.request = function () {
    var s = this.state;
    var body = {
      kind: "motion", lang: API.data.lang, lengths: s.lengths, path: s.path,
      frames_per_lap: s.frames_per_lap, budget: s.budget, start: s.start,
    };
    s.waiting = true;
    s.error = null;
    this.pendingKey = this.key();
    this.inflightBody = body;
    this.inflight = API.transport.send(this, body);
    this.update();
  };

  Player.prototype.receive = function (reply) {
    if (reply.id !== this.inflight) return;
    this.inflight = null;
    this.inflightBody = null;
    var s = this.state;
    s.waiting = false;
    if (!reply.ok) {
      s.error = reply.error || "error";
      s.playing = false;
      this.update();
      return;
    }
    s.data = reply.motion;
    s.dataKey = this.pendingKey;
    s.frame = 0;
    this.chartEl.innerHTML = s.data.chart;
    if (s.playing) this.startClock();
    this.update();
  };

  Player.prototype.startClock = function () {
    var s = this.state;
    s.clock = { t0: performance.now(), frame0: s.frame };
    var self = this;
    if (this.raf != null) cancelAnimationFrame(this.raf);
    function tick(now) {
      self.raf = null;
      var st = self.state;
      if (!st.playing || !st.data || !st.clock) return;
      var frames = st.data.frames;
      var elapsed = Math.max(0, now - st.clock.t0); // a frame time may precede t0
      var frame = (st.clock.frame0 + Math.floor((elapsed * FPS) / 1000)) % frames;
      if (frame !== st.frame) {
        st.frame = frame;
        self.update();
      }
      self.raf = requestAnimationFrame(tick);
    }
    this.raf = requestAnimationFrame(tick);
  };

  Player.prototype.play = function () {
    var s = this.state;
    s.playing = true;
    if (!s.data || s.dataKey !== this.key()) {
      if (!s.waiting) this.request();
      return;
    }
    this.startClock();
    this.update();
  };

  Player.prototype.pause = function () {
    this.state.playing = false;
    this.state.clock = null;
    if (this.raf != null) cancelAnimationFrame(this.raf);
    this.raf = null;
    this.update();
  };

  Player.prototype.bind = function () {
    var self = this;
    this.controls.addEventListener("change", function (event) {
      var el = event.target;
      var s = self.state;
      switch (el.name) {
        case "path": s.path = el.value; break;
        case "frames_per_lap": s.frames_per_lap = parseInt(el.value, 10); break;
        case "budget": s.budget = parseInt(el.value, 10); break;
        case "start": s.start = el.value; break;
        case "show": s.show = el.value; self.update(); return;
        default: return;
      }
      self.request();
    });
    this.controls.addEventListener("click", function (event) {
      var button = event.target.closest("button");
      if (!button || button.name !== "play") return;
      if (self.state.playing) self.pause();
      else self.play();
    });
    this.controls.querySelector('[name="scrub"]').addEventListener("input", function (event) {
      var s = self.state;
      if (!s.data) return;
      self.pause();
      s.frame = Math.max(0, Math.min(s.data.frames - 1, parseInt(event.target.value, 10) || 0));
      self.update();
    });
  };

  Player.prototype.drawJoints = function (joints) {
    var group = this.layer.joints;
    var marks = group.querySelectorAll(".joint");
    var want = joints.length - 2;
    var template = marks[0];
    for (var i = marks.length; i < want; i++) {
      var c = template ? template.cloneNode(false) : document.createElementNS(SVGNS, "circle");
      if (!template) { c.setAttribute("class", "joint"); c.setAttribute("r", String(this.spec.joint_r)); }
      c.setAttribute("data-index", String(i + 1));
      group.appendChild(c);
    }
    for (var k = marks.length - 1; k >= want; k--) group.removeChild(marks[k]);
    marks = group.querySelectorAll(".joint");
    for (var j = 0; j < want; j++) {
      marks[j].setAttribute("cx", String(joints[j + 1][0]));
      marks[j].setAttribute("cy", String(joints[j + 1][1]));
    }
  };

  // ONE redraw of every layer of the player from its state.
  Player.prototype.update = function () {
    var s = this.state;
    var data = s.data;
    var L = this.layer;
    var stale = !!data && s.dataKey !== this.key();
    this.el.classList.toggle("is-waiting", s.waiting);
    this.el.setAttribute("data-frame", data ? String(s.frame) : "");
    var play = this.controls.querySelector('[name="play"]');
    var playText = s.playing ? WORDS.pause : WORDS.play;
    if (play.textContent !== playText) play.textContent = playText;
    play.setAttribute("aria-pressed", s.playing ? "true" : "false");
    var scrub = this.controls.querySelector('[name="scrub"]');
    scrub.disabled = !data || stale;
    var settings = { path: s.path, frames_per_lap: s.frames_per_lap, budget: s.budget, start: s.start, show: s.show };
    var selects = this.controls.querySelectorAll("select");
    for (var c = 0; c < selects.length; c++) {
      var want = String(settings[selects[c].name]);
      if (selects[c].value !== want) selects[c].value = want;
    }

    var text = null;
    if (s.waiting) text = WORDS.waiting;
    else if (s.error) text = s.error;
    else if (!data || stale) text = WORDS.ready;
    if (data && !stale) {
      var run = data.methods[s.show];
      var joints = run.joints[s.frame];
      L.bones.setAttribute("points", pointsText(joints));
      this.drawJoints(joints);
      var tip = joints[joints.length - 1];
      L.tip.setAttribute("cx", String(tip[0]));
      L.tip.setAttribute("cy", String(tip[1]));
      var target = data.targets[s.frame];
      L.ring.setAttribute("cx", String(target[0]));
      L.ring.setAttribute("cy", String(target[1]));
      L.path.setAttribute("points", pointsText(data.lap));
      var first = Math.max(0, s.frame - data.frames_per_lap + 1);
      var trail = [];
      for (var i = first; i <= s.frame; i++) trail.push(run.joints[i][run.joints[i].length - 1]);
      L.trail.setAttribute("points", pointsText(trail));
      L.trail.setAttribute("data-method", s.show);
      L.outer.setAttribute("r", String(data.reach.outer));
      L.inner.setAttribute("r", String(data.reach.inner));
      L.inner.setAttribute("visibility", data.reach.inner > 0 ? "visible" : "hidden");
      scrub.max = String(data.frames - 1);
      scrub.value = String(s.frame);
      if (text == null) {
        var errors = data.methods ? Object.keys(data.methods).map(function (m) {
          return (METHOD_NAMES["method_" + m] || m) + " " + data.methods[m].errors[s.frame] + " m";
        }).join(" · ") : "";
        text = fill(WORDS.position, {
          frame: s.frame + 1, frames: data.frames,
          lap: Math.floor(s.frame / data.frames_per_lap) + 1, errors: errors,
        });
      }
      var cursor = this.chartEl.querySelector(".cursor");
      var dot = this.chartEl.querySelector(".cursor-dot");
      if (cursor && dot) {
        cursor.setAttribute("x1", String(data.cursor[s.frame]));
        cursor.setAttribute("x2", String(data.cursor[s.frame]));
        dot.setAttribute("cx", String(data.cursor[s.frame]));
        dot.setAttribute("cy", String(run.y[s.frame]));
        cursor.setAttribute("visibility", "visible");
        dot.setAttribute("visibility", "visible");
      }
      var self = this;
      Object.keys(data.methods).forEach(function (m) {
        var dd = self.el.querySelector('.motion-summary [data-method="' + m + '"] .ms-value');
        var value = data.methods[m].summary.mean_error + " m";
        if (dd && dd.textContent !== value) dd.textContent = value;
      });
    }
    // Announced politely when it changes at a reader's pace, not 60 times a second.
    var live = s.playing ? "off" : "polite";
    if (this.statusEl.getAttribute("aria-live") !== live) this.statusEl.setAttribute("aria-live", live);
    if (text != null && this.statusEl.textContent !== text) this.statusEl.textContent = text;
  };

  function attach() {
    var specs = API.data.motions || {};
    document.querySelectorAll(".motion[data-motion]").forEach(function (el) {
      var spec = specs[el.id];
      if (!spec || !el.querySelector("svg.motion-figure")) return;
      var player = new Player(el, spec);
      players[el.id] = player;
      player.update();
    });
    // A link that opens the player with a preset: set it, play it, bring it into view
    // (without scripts the link only leads to the player).
    document.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a[data-motion-preset]");
      if (!link) return;
      var player = players[link.getAttribute("data-motion-player")];
      if (!player || !player.preset(link.getAttribute("data-motion-preset"))) return;
      event.preventDefault();
      player.el.scrollIntoView({ block: "start" });
      player.controls.querySelector('[name="play"]').focus({ preventScroll: true });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach);
  else attach();
})();
