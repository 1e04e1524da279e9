/* ikchain lesson page: 2.4's soft-reach player (drawing only).
 *
 * The server (ikchain.lesson.soft_reach) solved a target moving along a ray out past
 * ΣL and back twice, with the hard clamp and with the soft reach, and embedded every
 * frame in the block's data (script.sr-data): the target, each run's joints, its
 * knee, error and status as text, and each frame's position on the knee chart. This
 * script only picks a frame (from the slider, or from the clock while playing) and
 * copies that frame's numbers into the picture, the chart's cursor and the texts; it
 * computes no position, angle, error or chart coordinate.
 *
 * One state object per player, one update() that redraws everything from it.
 */
(function () {
  "use strict";

  var API = window.ikchainLesson;
  if (!API) return;
  var fill = API.fill; // the page text's %name% marks
  var pointsText = API.pointsText;
  var players = {};
  window.__ikchainSoftReach = players;

  function setAttr(el, name, value) {
    var text = String(value);
    if (el && el.getAttribute(name) !== text) el.setAttribute(name, text);
  }

  function setText(el, text) {
    if (el && el.textContent !== text) el.textContent = text;
  }

  function Player(el, data) {
    this.el = el;
    this.data = data;
    this.runs = Object.keys(data.runs);
    var svg = el.querySelector("svg.sr-figure");
    var chart = el.querySelector(".sr-chart svg");
    var self = this;
    this.layers = {};
    this.runs.forEach(function (run) {
      var g = svg.querySelector('.sr-panel[data-run="' + run + '"]');
      self.layers[run] = {
        bones: g.querySelector(".bones"), joints: g.querySelectorAll(".joint"),
        tip: g.querySelector(".tip"), gap: g.querySelector(".gap"),
        ring: g.querySelector(".target-ring"),
        reading: el.querySelector('.sr-label[data-run="' + run + '"] .sr-reading'),
        dot: chart ? chart.querySelector('.cursor-dot[data-series="' + run + '"]') : null,
      };
    });
    this.cursor = chart ? chart.querySelector(".cursor") : null;
    this.controls = el.querySelector(".sr-controls");
    this.playButton = this.controls.querySelector('[name="play"]');
    this.scrub = this.controls.querySelector('[name="frame"]');
    this.statusEl = el.querySelector(".sr-status");
    this.raf = null;
    this.state = { frame: data["static"], playing: false, clock: null };
    this.bind();
    this.controls.disabled = false;
  }

  Player.prototype.setFrame = function (frame) {
    var frames = this.data.frames;
    this.state.frame = Math.max(0, Math.min(frames - 1, frame | 0));
  };

  Player.prototype.play = function () {
    var s = this.state;
    var self = this;
    s.playing = true;
    s.clock = { t0: null, frame0: s.frame };
    if (this.raf != null) cancelAnimationFrame(this.raf);
    function tick(now) {
      self.raf = null;
      var st = self.state;
      if (!st.playing || !st.clock) return;
      if (st.clock.t0 == null) st.clock.t0 = now;
      var elapsed = Math.max(0, now - st.clock.t0);
      var frame = (st.clock.frame0 + Math.floor((elapsed * self.data.fps) / 1000)) % self.data.frames;
      if (frame !== st.frame) {
        st.frame = frame;
        self.update();
      }
      self.raf = requestAnimationFrame(tick);
    }
    this.raf = requestAnimationFrame(tick);
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
    this.playButton.addEventListener("click", function () {
      if (self.state.playing) self.pause();
      else self.play();
    });
    this.scrub.addEventListener("input", function () {
      var frame = parseInt(self.scrub.value, 10) || 0; // before pause() redraws the slider
      self.setFrame(frame);
      if (self.state.playing) self.pause();
      else self.update();
    });
  };

  // The texts of one frame, as ikchain.lesson.soft_reach.frame_words makes them.
  Player.prototype.values = function (frame) {
    var d = this.data;
    var values = { frame: frame + 1, frames: d.frames, d: d.d[frame] };
    this.runs.forEach(function (run) {
      var r = d.runs[run];
      values[run + "_knee"] = r.knee[frame];
      values[run + "_error"] = r.error[frame];
      values[run + "_status"] = r.status[frame];
    });
    return values;
  };

  // ONE redraw of everything from the state.
  Player.prototype.update = function () {
    var s = this.state;
    var d = this.data;
    var frame = s.frame;
    var words = d.words;
    var target = d.targets[frame];
    var self = this;
    this.runs.forEach(function (run) {
      var L = self.layers[run];
      var r = d.runs[run];
      var joints = r.joints[frame];
      var tip = joints[joints.length - 1];
      setAttr(L.bones, "points", pointsText(joints));
      for (var j = 0; j < L.joints.length; j++) {
        setAttr(L.joints[j], "cx", joints[j + 1][0]);
        setAttr(L.joints[j], "cy", joints[j + 1][1]);
      }
      setAttr(L.tip, "cx", tip[0]);
      setAttr(L.tip, "cy", tip[1]);
      setAttr(L.gap, "x1", tip[0]);
      setAttr(L.gap, "y1", tip[1]);
      setAttr(L.gap, "x2", target[0]);
      setAttr(L.gap, "y2", target[1]);
      setAttr(L.ring, "cx", target[0]);
      setAttr(L.ring, "cy", target[1]);
      setText(L.reading, fill(words.knee, { knee: r.knee[frame], error: r.error[frame] }));
      if (L.dot) {
        setAttr(L.dot, "cx", d.cursor[frame]);
        setAttr(L.dot, "cy", r.y[frame]);
      }
    });
    if (this.cursor) {
      setAttr(this.cursor, "x1", d.cursor[frame]);
      setAttr(this.cursor, "x2", d.cursor[frame]);
    }
    var values = this.values(frame);
    setAttr(this.el, "data-frame", frame);
    setText(this.playButton, s.playing ? words.pause : words.play);
    setAttr(this.playButton, "aria-pressed", s.playing ? "true" : "false");
    if (this.scrub.value !== String(frame)) this.scrub.value = String(frame);
    setAttr(this.scrub, "aria-valuetext", fill(words.scrub_value, values));
    // Announced politely at a reader's pace, not thirty times a second.
    setAttr(this.statusEl, "aria-live", s.playing ? "off" : "polite");
    setText(this.statusEl, fill(words.position, values));
  };

  function attach() {
    document.querySelectorAll("figure.soft-reach[data-soft-reach]").forEach(function (el) {
      var source = el.querySelector("script.sr-data");
      if (!source || !el.querySelector("svg.sr-figure")) return;
      var player = new Player(el, JSON.parse(source.textContent));
      players[el.id] = player;
      player.update();
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach);
  else attach();
})();
