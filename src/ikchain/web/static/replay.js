/* ikchain lesson page: the replay panel under a figure (drawing only).
 *
 * "Replay from the start pose" asks the server (kind "replay" on the frame channel)
 * to solve the figure's current chain, target, method, damping and iteration limit
 * from the start pose; the answer lists every pose along the way (for CCD, also after
 * each joint's turn within a sweep), each with its readings and the position of the
 * chart's cursor, and the chart itself as SVG. This script only shows one of those
 * steps at a time: it computes no angle, position, error or chart coordinate.
 *
 * State: the figure's one state carries the panel's part, fig.state.replay =
 *   {data, index, playing, joints, key, waiting, inflight, sent, none, error, then};
 * the panel changes nothing else in it: the step it draws goes through
 * fig.showFrame(), the figure's own answer through fig.adoptFrame(). The figure's one
 * update() redraws everything, ending with this panel (a hook in lesson.js). What a
 * method can replay, and whether joint by joint, is the server's word (API.methods).
 *
 * At a CCD joint's turn the step carries its picture (step.picture, metres, world
 * axes): the ray from the joint to the tip before the turn, the ray to the target
 * (data.target), the arc of the turned angle and the pose before the turn as a ghost
 * (the joints of step picture.ghost). update() draws them in one group of the
 * figure's world, under the chain; every coordinate is the server's.
 */
(function () {
  "use strict";

  var API = window.ikchainLesson;
  if (!API) return;
  var fill = API.fill;
  var WORDS = (API.labels && API.labels.replay) || {};
  var SVGNS = "http://www.w3.org/2000/svg";
  var STEP_MS = 160; // one step every 160 ms while playing
  var panels = {}; // figure id -> Panel
  var METHODS = API.methods || {};

  function replayable(method) { return !!METHODS[method] && METHODS[method].replay; }
  function jointSteps(method) { return !!METHODS[method] && METHODS[method].joint_steps; }

  function copy(value) { return JSON.parse(JSON.stringify(value)); }

  function Panel(el, fig) {
    this.el = el;
    this.fig = fig;
    this.controls = el.querySelector(".replay-controls");
    this.statusEl = el.querySelector(".replay-status");
    this.chartEl = el.querySelector(".replay-chart");
    this.timer = null;
    this.picture = null; // the figure's group for a CCD turn's picture (made on first use)
    // The turned angle's sentence, under the status line (shown at a CCD joint's turn).
    this.turnEl = document.createElement("p");
    this.turnEl.className = "replay-turn";
    this.turnEl.hidden = true;
    this.statusEl.parentNode.insertBefore(this.turnEl, this.statusEl.nextSibling);
    this.bind();
    this.controls.disabled = false;
  }

  // The group drawing a CCD turn, made once, under the figure's chain: the ghost of
  // the pose before the turn, the two rays from the turning joint and the arc.
  Panel.prototype.pictureLayer = function () {
    if (this.picture) return this.picture;
    var bones = this.fig.layer.bones;
    var g = document.createElementNS(SVGNS, "g");
    g.setAttribute("class", "turn-picture");
    g.setAttribute("aria-hidden", "true");
    var parts = {
      ghost: ["polyline", "turn-ghost"],
      toTip: ["line", "turn-ray turn-ray-tip"],
      toTarget: ["line", "turn-ray turn-ray-target"],
      arc: ["path", "turn-arc"],
    };
    var layer = { g: g };
    Object.keys(parts).forEach(function (name) {
      var el = document.createElementNS(SVGNS, parts[name][0]);
      el.setAttribute("class", parts[name][1]);
      g.appendChild(el);
      layer[name] = el;
    });
    bones.parentNode.insertBefore(g, bones);
    this.picture = layer;
    return layer;
  };

  // Draw step `step`'s picture (null: hide it). Numbers are set as the server sent them.
  Panel.prototype.drawPicture = function (data, step) {
    var pic = step && step.picture;
    if (!pic && !this.picture) return;
    var layer = this.pictureLayer();
    var shown = pic ? "visible" : "hidden";
    if (layer.g.getAttribute("visibility") !== shown) layer.g.setAttribute("visibility", shown);
    if (!pic) return;
    var ghost = data.steps[pic.ghost].joints;
    var parts = [];
    for (var i = 0; i < ghost.length; i++) parts.push(ghost[i][0] + "," + ghost[i][1]);
    layer.ghost.setAttribute("points", parts.join(" "));
    var ends = { toTip: pic.tip, toTarget: data.target };
    Object.keys(ends).forEach(function (name) {
      var el = layer[name];
      el.setAttribute("x1", String(pic.pivot[0]));
      el.setAttribute("y1", String(pic.pivot[1]));
      el.setAttribute("x2", String(ends[name][0]));
      el.setAttribute("y2", String(ends[name][1]));
    });
    // The wedge of the turned angle: pivot, out along the tip ray, round the arc, back.
    var a = pic.arc; // [x0, y0, x1, y1, r, sweep]
    layer.arc.setAttribute("d", "M " + pic.pivot[0] + " " + pic.pivot[1] + " L " + a[0] + " " + a[1] +
      " A " + a[4] + " " + a[4] + " 0 0 " + a[5] + " " + a[2] + " " + a[3] + " Z");
  };

  Panel.prototype.state = function () {
    var s = this.fig.state;
    if (!s.replay) {
      s.replay = {
        data: null, index: null, playing: false, joints: true, key: null, waiting: false,
        inflight: null, sent: null, none: false, error: null, then: null,
      };
    }
    return s.replay;
  };

  // What a replay depends on in the figure's state: when it changes, the replay is stale.
  Panel.prototype.key = function () {
    var s = this.fig.state;
    return JSON.stringify([s.method, s.bones, s.damping, s.iterations, s.bend, s.frame.result.target]);
  };

  // The key of the figure's default state: the one the server's summary and chart
  // (drawn before any script ran) describe.
  Panel.prototype.defaultKey = function () {
    var d = this.fig.defaults;
    return JSON.stringify([d.method, d.bones, d.damping, d.iterations, d.bend, d.target]);
  };

  Panel.prototype.control = function (name) {
    return this.controls.querySelector('[name="' + name + '"]');
  };

  Panel.prototype.body = function () {
    var live = this.fig.body(); // what the figure's own request would carry now
    var s = this.fig.state;
    var method = s.method; // request() never asks for a method the server cannot replay
    // The server's caps (the panel's data attributes): iterations, and drawn steps (a
    // sweep joint by joint is one step a bone, one step is the mirror's, one the start
    // pose's); a larger iteration limit is replayed up to them.
    var max = Number(this.el.getAttribute("data-max-iterations"));
    var steps = Number(this.el.getAttribute("data-max-steps"));
    var perIteration = jointSteps(method) && this.state().joints ? s.bones : 1;
    max = Math.min(max, Math.floor((steps - 1) / perIteration));
    var given = s.given;
    return {
      kind: "replay",
      lang: API.data.lang,
      lengths: live.lengths,
      target: s.frame.result.target, // the solved target (with smoothing, where the ring is)
      method: method,
      // the start the figure's solve was given (the stall's, a table row's), else the
      // default start; the server keeps the bend as the figure's frame does
      init: given ? given.init : null,
      // what the figure's own request carries for this method (the keys it takes;
      // 2.5: the limits, the pull, no bend with them)
      bend: live.bend,
      pole: live.pole, // with the pole on, the run the pole chose (the figure's)
      limits: live.limits,
      rest: live.rest,
      rest_weight: live.rest_weight,
      iterations: Math.min(s.iterations, max),
      tolerance: s.tolerance,
      damping: live.damping,
      joint_steps: this.state().joints,
    };
  };

  // Ask for a replay; `then` is what the answer does: "play" (the default) plays it,
  // "step" shows its first step only. A method the server cannot replay (the closed
  // form: one formula, no iterations) has nothing to show, and the panel says so.
  Panel.prototype.request = function (then) {
    var rs = this.state();
    rs.none = false;
    if (!replayable(this.fig.state.method)) {
      this.stop();
      rs.inflight = null;
      rs.waiting = false;
      rs.data = null;
      rs.index = null;
      rs.none = true;
      this.fig.showFrame(null);
      return;
    }
    rs.then = then || "play";
    var body = this.body();
    rs.waiting = true;
    rs.key = this.key();
    this.stop();
    rs.sent = body;
    rs.inflight = API.transport.send(this, body);
    this.fig.update();
  };

  Panel.prototype.receive = function (reply) {
    var rs = this.state();
    if (reply.id !== rs.inflight) return;
    rs.inflight = null;
    rs.waiting = false;
    if (!reply.ok) {
      rs.error = reply.error || "error";
      rs.data = null;
      rs.index = null;
      this.fig.showFrame(null);
      return;
    }
    rs.error = null;
    rs.data = reply.replay;
    // The replayed solve is the figure's solve from its start pose: unless the replay
    // was cut to its cap, the figure draws that same answer once the replay is back.
    var sent = rs.sent;
    if (reply.replay.frame && sent && sent.iterations === this.fig.state.iterations &&
        rs.key === this.key()) {
      this.fig.adoptFrame(reply.replay.frame, sent);
    }
    this.chartEl.innerHTML = reply.replay.chart;
    this.show(0);
    if (rs.then !== "step") this.play();
  };

  // The frame the figure draws for step i: the live frame with this step's pose.
  Panel.prototype.stepFrame = function (i) {
    var rs = this.state();
    var step = rs.data.steps[i];
    var last = i === rs.data.steps.length - 1;
    var frame = copy(this.fig.state.frame);
    frame.result.joints = step.joints;
    for (var k in step.readings) {
      if (Object.prototype.hasOwnProperty.call(step.readings, k)) frame.readings[k] = step.readings[k];
    }
    frame.result.status = last ? rs.data.status : "running"; // labels.status.running: the server's
    frame.ellipse = null; // a step carries no manipulability ellipse: the figure hides it
    return frame;
  };

  Panel.prototype.show = function (i) {
    var rs = this.state();
    if (!rs.data) return;
    var n = rs.data.steps.length;
    rs.index = Math.max(0, Math.min(n - 1, i));
    this.fig.showFrame(this.stepFrame(rs.index));
  };

  Panel.prototype.play = function () {
    var rs = this.state();
    if (!rs.data) return;
    if (rs.index == null || rs.index >= rs.data.steps.length - 1) this.show(0);
    rs.playing = true;
    var self = this;
    this.stop(true);
    this.timer = setInterval(function () {
      var state = self.state();
      if (!state.playing || state.index == null || !state.data) { self.stop(); self.fig.update(); return; }
      if (state.index >= state.data.steps.length - 1) { self.stop(); self.fig.update(); return; }
      self.show(state.index + 1);
    }, STEP_MS);
    this.fig.update();
  };

  Panel.prototype.stop = function (keepFlag) {
    if (this.timer != null) clearInterval(this.timer);
    this.timer = null;
    if (!keepFlag && this.fig.state.replay) this.fig.state.replay.playing = false;
  };

  Panel.prototype.live = function () {
    this.stop();
    var rs = this.state();
    rs.index = null;
    this.fig.showFrame(null);
  };

  // On a phone the figure stays on screen (sticky) above the panel; the panel puts its
  // step line and chart just above its buttons (extras.css). A step pressed there
  // must not leave them under the figure or below the screen: scroll so that the
  // step line sits right under the figure, with the chart and the buttons below it.
  var NARROW = window.matchMedia ? window.matchMedia("(max-width: 40rem)") : null;
  Panel.prototype.keepInView = function () {
    if (!NARROW || !NARROW.matches) return;
    var stick = this.fig.el.querySelector(".fig-stick");
    var top = stick ? stick.getBoundingClientRect().bottom : 0;
    var status = this.statusEl.getBoundingClientRect();
    var chart = this.chartEl.getBoundingClientRect();
    if (status.top >= top && chart.bottom <= window.innerHeight) return;
    window.scrollBy(0, status.top - top - 6);
  };

  Panel.prototype.bind = function () {
    var self = this;
    this.controls.addEventListener("click", function (event) {
      var button = event.target.closest("button");
      if (!button) return;
      var rs = self.state();
      switch (button.name) {
        case "start": self.request(); break;
        case "play":
          if (rs.playing) { self.stop(); self.fig.update(); }
          else if (!rs.data || rs.key !== self.key()) self.request();
          else self.play();
          break;
        case "back":
        case "forward":
          self.stop();
          if (!rs.data || rs.key !== self.key()) { self.request("step"); break; }
          // from the live figure, ▶ starts at the first step and ◀ at the last
          var at = rs.index == null ? (button.name === "back" ? rs.data.steps.length : -1) : rs.index;
          self.show(at + (button.name === "back" ? -1 : 1));
          break;
        case "live": self.live(); break;
        default: return;
      }
      if (button.name !== "live") self.keepInView();
    });
    this.control("scrub").addEventListener("input", function (event) {
      var rs = self.state();
      if (!rs.data) return;
      self.stop();
      self.show(parseInt(event.target.value, 10));
      self.keepInView();
    });
    this.control("joints").addEventListener("change", function (event) {
      self.state().joints = !!event.target.checked;
      self.request();
    });
  };

  // The panel's layers, redrawn from the figure's state at the end of its update().
  Panel.prototype.update = function () {
    var rs = this.state();
    var s = this.fig.state;
    // The reader's input (drag, keys, a control) ended the replay: back to live.
    if (rs.index != null && !s.shown) {
      this.stop();
      rs.index = null;
    }
    // a replay the reader asked for, or the server's own of the default state, that no
    // longer matches the figure
    var stale = rs.data ? rs.key !== this.key() : !rs.inflight && this.key() !== this.defaultKey();
    var data = rs.data;
    var text;
    if (rs.none && !replayable(s.method)) text = WORDS.analytic_none;
    else if (rs.waiting) text = WORDS.waiting;
    else if (rs.error) text = rs.error;
    else if (stale) text = WORDS.stale;
    else if (data && rs.index != null) {
      var step = data.steps[rs.index];
      var total = data.iterations;
      if (rs.index === data.steps.length - 1) {
        var status = (API.labels.status && API.labels.status[data.status]) || data.status;
        text = fill(WORDS.final, { total: total, status: status, error: data.error });
      } else if (step.mirror) text = fill(WORDS.position_mirror, { k: step.iteration, total: total });
      else if (step.iteration === 0) text = fill(WORDS.position_start, { total: total });
      else if (step.joint === 0) text = fill(WORDS.position_root, { k: step.iteration, total: total });
      else if (step.joint != null) text = fill(WORDS.position_joint, { k: step.iteration, total: total, j: step.joint });
      else text = fill(WORDS.position, { k: step.iteration, total: total });
    }
    // Announced politely when it changes at a reader's pace, not at every played step.
    var live = rs.playing ? "off" : "polite";
    if (this.statusEl.getAttribute("aria-live") !== live) this.statusEl.setAttribute("aria-live", live);
    if (text != null && this.statusEl.textContent !== text) this.statusEl.textContent = text;
    this.el.classList.toggle("is-stale", stale || (!!rs.none && !replayable(s.method)));
    this.el.classList.toggle("is-replaying", rs.index != null);
    this.el.setAttribute("data-index", rs.index == null ? "" : String(rs.index));

    var play = this.control("play");
    var playText = rs.playing ? WORDS.pause : WORDS.play;
    if (play.textContent !== playText) play.textContent = playText;
    play.setAttribute("aria-pressed", rs.playing ? "true" : "false");
    var scrub = this.control("scrub");
    var usable = !!data && !stale;
    scrub.disabled = !usable;
    if (data) {
      scrub.max = String(data.steps.length - 1);
      if (rs.index != null) scrub.value = String(rs.index);
    }
    this.control("back").disabled = !usable || rs.index === 0;
    this.control("forward").disabled = usable && rs.index != null && rs.index >= data.steps.length - 1;
    this.control("live").disabled = rs.index == null;
    var joints = this.control("joints");
    if (joints.checked !== rs.joints) joints.checked = rs.joints;
    var label = joints.closest("label");
    if (label.hidden !== !jointSteps(s.method)) label.hidden = !jointSteps(s.method);

    // The joint that has just turned (CCD, joint by joint) is ringed in the figure.
    var turning = data && rs.index != null && !stale ? data.steps[rs.index].joint : null;
    if (turning !== this.turning) { // touch the marks only when the turning joint changes
      this.turning = turning;
      var marks = this.fig.svg.querySelectorAll(".root, .joints .joint");
      for (var m = 0; m < marks.length; m++) {
        var index = marks[m].classList.contains("root") ? 0 : Number(marks[m].getAttribute("data-index"));
        marks[m].classList.toggle("is-turning", turning != null && index === turning);
      }
    }

    // A CCD joint's turn: its two rays, the arc of its angle, the pose before it, and
    // the angle's value (the server's text) under the status line.
    var drawn = data && rs.index != null && !stale ? data.steps[rs.index] : null;
    this.drawPicture(data, drawn);
    var turnText = drawn && drawn.picture ? fill(WORDS.turn, { angle: drawn.picture.angle }) : "";
    if (this.turnEl.textContent !== turnText) this.turnEl.textContent = turnText;
    if (this.turnEl.hidden !== !turnText) this.turnEl.hidden = !turnText;

    var cursor = this.chartEl.querySelector(".cursor");
    var dot = this.chartEl.querySelector(".cursor-dot");
    if (cursor && dot) {
      var visible = !!data && rs.index != null && !stale;
      var shown = visible ? "visible" : "hidden";
      if (cursor.getAttribute("visibility") !== shown) {
        cursor.setAttribute("visibility", shown);
        dot.setAttribute("visibility", shown);
      }
      if (visible) {
        var at = data.steps[rs.index];
        cursor.setAttribute("x1", String(at.x));
        cursor.setAttribute("x2", String(at.x));
        dot.setAttribute("cx", String(at.x));
        dot.setAttribute("cy", String(at.y));
      }
    }
  };

  function attach() {
    var figures = window.__ikchainFigures || {};
    document.querySelectorAll(".replay[data-replay-for]").forEach(function (el) {
      var fig = figures[el.getAttribute("data-replay-for")];
      if (!fig) return;
      var panel = new Panel(el, fig);
      panels[fig.id] = panel;
      window.__ikchainReplays = panels;
    });
    API.hooks.push(function (fig) {
      var panel = panels[fig.id];
      if (panel) panel.update();
    });
    Object.keys(panels).forEach(function (id) { panels[id].fig.update(); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach);
  else attach();
})();
