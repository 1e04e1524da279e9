/* ikchain lesson page: input and drawing only.
 *
 * Every number drawn or printed here comes from the Python solver through the server
 * (WebSocket /ws, or POST /api/frame when the socket is unavailable). This script
 * converts pointer coordinates to world coordinates, keeps ONE state per figure, and
 * one update() redraws every layer of a figure from that state. It computes no
 * angle, position, distance, ratio, error or smoothing of an answer (2.8's hand
 * handle turns the pointer into the angle the reader asks for: input, not answer).
 *
 * Measurement hook (used by `python -m ikchain.bench.lesson`): every redraw that
 * answers an input is pushed to window.__ikchainRedraws as
 *   {figure, id, input, handled, local, received, drawn, painted}
 * in performance.now() milliseconds: input = the event's timeStamp of the earliest
 * pointer/key event the answered request carried, handled = when its handler ran,
 * local = the first animation frame after the handler (where a page drawing in the
 * handler, with no server, would paint: the floor, and where the dragged ring is
 * painted), received = when the answer arrived, drawn = right after update() wrote
 * it, painted = the next animation frame.
 */
(function () {
  "use strict";

  var doc = document.documentElement;
  doc.classList.remove("no-js");
  doc.classList.add("js");

  var dataEl = document.getElementById("lesson-data");
  if (!dataEl) return;
  var DATA = JSON.parse(dataEl.textContent);
  var LABELS = DATA.labels || {};
  var SVGNS = "http://www.w3.org/2000/svg";
  // Arrow keys move the ring on a grid of 1 cm, two cells a press (ten with Shift).
  // The ring's coordinates are (integer / GRID), so every table row on the grid, such
  // as (1.4, 0), is reached exactly, not as 1.4000000000000001 after a sum of steps.
  var GRID = 100; // cells per metre
  var STEP_CELLS = 2;
  var BIG_STEP_CELLS = 10;
  // While the ring rests after a move, an iterative solve that stopped at its
  // iteration limit goes on from where it stopped, for at most this many frames.
  var REST_FRAMES = 120;
  var REDRAW_LOG_MAX = 5000;

  // What the server says of each method (content.method_facts), in the menu's order:
  // the request keys it takes (the solver refuses options it does not use), the one
  // bone count it needs (null: any), whether a replay can show it and step it joint
  // by joint. No script decides anything about a method by its name.
  var METHODS = DATA.methods || {};
  var METHOD_ORDER = Object.keys(METHODS);
  // A figure whose options carry a pole (content.POLE_DEFAULT, two-bone figures) has a pole
  // (hint) handle that starts there: a point the chain bends toward; the server solves
  // with it (ikchain.solve(..., pole=)) and says which bend it chose. Its sizes are
  // the server's ring's, read from the SVG: a diamond 3/4 the ring's
  // radius from its centre to each corner, and the ring's hit area.
  var POLE_OF_RING = 0.75;
  // 2.8's hand handle (options.hand): a knob the server places (frame.hand.knob) along
  // the hand's direction; its radius is this share of the ring's. Its keys turn the
  // hand by HAND_STEP degrees (HAND_BIG_STEP with Shift), on a grid of whole degrees.
  var KNOB_OF_RING = 0.6;
  var HAND_STEP = 5;
  var HAND_BIG_STEP = 15;

  function takes(method, key) {
    var m = METHODS[method];
    return !!m && m.takes.indexOf(key) >= 0;
  }
  function fitsBones(method, bones) {
    var m = METHODS[method];
    return !!m && (m.bones == null || m.bones === bones);
  }
  // The first method, in the server's order, that takes this many bones (and, with
  // `iterative`, has iterations): where a figure goes when its method cannot follow.
  // `menu`: the figure's own menu (the methods its section has taught), searched first.
  function methodFor(bones, iterative, menu) {
    var order = (menu || []).concat(METHOD_ORDER);
    for (var i = 0; i < order.length; i++) {
      var m = order[i];
      if (fitsBones(m, bones) && (!iterative || takes(m, "iterations"))) return m;
    }
    return null;
  }

  window.__ikchainRedraws = [];
  window.__ikchainFigures = {};
  // Extensions (replay.js, motion.js): each hook(fig) runs at the end of every
  // figure's update(), to redraw the layers it owns from the same state.
  var HOOKS = [];
  // ... and each bodyHook(fig, body) may add its keys to a figure's request.
  var BODY_HOOKS = [];
  // ... and each link part {key, read(fig), apply(fig, raw)} carries its part of a
  // figure's state in the figure's link (choose.js: the limits preset).
  var LINK_PARTS = [];
  var LINK_CONTROLS = {}; // figure id -> {a, msg}: its "link to this figure" and its message

  // ------------------------------------------------------------------ transport
  var transport = {
    ws: null,
    state: "idle", // idle | connecting | open | failed
    nextId: 1,
    waiting: {}, // id -> {to: the figure or panel that asked, body: what it sent}
    queue: [], // bodies waiting for the socket to open
    retryAt: 0,

    connect: function () {
      if (!("WebSocket" in window) || !DATA.ws_path) {
        this.state = "failed";
        return;
      }
      var self = this;
      var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + DATA.ws_path;
      var ws;
      try {
        ws = new WebSocket(url);
      } catch (err) {
        this.fail();
        return;
      }
      this.ws = ws;
      this.state = "connecting";
      ws.onopen = function () {
        self.state = "open";
        var queued = self.queue;
        self.queue = [];
        queued.forEach(function (body) { ws.send(JSON.stringify(body)); });
      };
      ws.onmessage = function (event) {
        var reply;
        try { reply = JSON.parse(event.data); } catch (err) { return; }
        self.deliver(reply);
      };
      ws.onclose = function () { self.fail(); };
      ws.onerror = function () { /* onclose follows */ };
    },

    fail: function () {
      this.ws = null;
      this.state = "failed";
      this.retryAt = performance.now() + 3000;
      var queued = this.queue;
      this.queue = [];
      var self = this;
      queued.forEach(function (body) { self.post(body); });
      // Requests that were in flight on the dead socket: send them again over HTTP.
      Object.keys(this.waiting).forEach(function (id) { self.post(self.waiting[id].body); });
    },

    post: function (body) {
      var self = this;
      fetch("/api/frame", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      })
        .then(function (response) { return response.json(); })
        .then(function (reply) {
          if (reply && reply.id == null) reply.id = body.id;
          self.deliver(reply);
        })
        .catch(function (err) {
          self.deliver({ id: body.id, ok: false, error: String(err) });
        });
    },

    send: function (fig, body) {
      body.id = this.nextId++;
      this.waiting[body.id] = { to: fig, body: body };
      if (this.state === "failed" && performance.now() > this.retryAt) this.connect();
      if (this.state === "open") this.ws.send(JSON.stringify(body));
      else if (this.state === "connecting") this.queue.push(body);
      else this.post(body);
      return body.id;
    },

    deliver: function (reply) {
      if (!reply || reply.id == null) return;
      var entry = this.waiting[reply.id];
      delete this.waiting[reply.id];
      if (entry) entry.to.receive(reply);
    },
  };

  // ------------------------------------------------------------------ helpers
  function copy(value) { return JSON.parse(JSON.stringify(value)); }

  // Where the figures sit on screen changes only when the page scrolls or something
  // is resized: until then a figure keeps the matrix from screen to world it last
  // read (reading it after update() has written the figure forces the browser to lay
  // the page out again, once per pointer event of a drag).
  var placement = 0;
  function moved() { placement += 1; }
  // figure -> {inverse: the screen-to-world matrix, at: the placement it was read at};
  // kept beside the figures, not in their state: it is the browser's layout, not the
  // lesson's
  var placed = new WeakMap();
  window.addEventListener("scroll", moved, { passive: true, capture: true });
  window.addEventListener("resize", moved);
  // A figure resized (its column, a font): the observer's first call only reports
  // the size it starts from.
  var sizes = new WeakMap();
  var resized = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var size = entry.contentRect.width + "x" + entry.contentRect.height;
      if (sizes.has(entry.target) && sizes.get(entry.target) !== size) moved();
      sizes.set(entry.target, size);
    });
  }) : null;

  // When an input happened (the event's own time stamp) and when we handled it.
  function stamp(event) {
    var now = performance.now();
    var t = event && event.timeStamp > 0 && event.timeStamp <= now ? event.timeStamp : now;
    var at = { input: t, handled: now, local: null };
    requestAnimationFrame(function () { at.local = performance.now(); }); // see the top
    return at;
  }

  function setAttrs(el, attrs) {
    for (var name in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, name)) el.setAttribute(name, String(attrs[name]));
    }
  }

  function show(el, visible) {
    if (el) el.setAttribute("visibility", visible ? "visible" : "hidden");
  }

  function pointsText(points) {
    var parts = [];
    for (var i = 0; i < points.length; i++) parts.push(points[i][0] + "," + points[i][1]);
    return parts.join(" ");
  }

  // The page text marks what a script fills in as %name% (the server fills {name}).
  function fill(template, values) {
    return String(template || "").replace(/%(\w+)%/g, function (all, name) {
      return values[name] != null ? String(values[name]) : all;
    });
  }

  // ------------------------------------------------------------------ figure
  function Figure(el, spec) {
    this.el = el;
    this.id = spec.id;
    this.spec = spec;
    this.options = spec.options || {};
    this.defaults = spec.defaults || {};
    this.svg = el.querySelector("svg.ik-figure");
    this.world = this.svg.querySelector("g.world");
    if (resized) resized.observe(this.svg);
    this.extent = parseFloat(this.svg.getAttribute("data-extent")) || 2;
    var q = this.svg.querySelector.bind(this.svg);
    this.layer = {
      outer: q(".reach-outer"),
      inner: q(".reach-inner"),
      gap: q(".gap"),
      bones: q(".bones"),
      joints: q(".joints"),
      tip: q(".tip"),
      pointer: q(".pointer"),
      target: q("g.target"),
      hit: q(".target-hit"),
      ring: q(".target-ring"),
      // 2.2: the manipulability ellipse at the tip (only where the server drew it)
      ellipse: q("g.ellipse"),
      ellipseShape: q(".ellipse-shape"),
      ellipseAxis: q(".ellipse-axis"),
      // 2.8: the wrist's annulus, the wrist point and the hand's line (frame.hand)
      wristReach: q(".wrist-reach"),
      hand: q("g.hand"),
      handLine: q(".hand-line"),
      handArrow: q(".hand-arrow"),
      wrist: q(".wrist-point"),
    };
    this.jointTemplate = this.layer.joints.querySelector(".joint");
    // The ring is a slider only while this script runs (without it nothing moves it,
    // so the server's SVG gives it no Tab stop and no role).
    setAttrs(this.layer.target, {
      tabindex: 0, role: "slider", "aria-keyshortcuts": "ArrowLeft ArrowRight ArrowUp ArrowDown",
    });
    if (LABELS.readings && LABELS.readings.target) {
      this.layer.target.setAttribute("aria-label", LABELS.readings.target);
    }
    this.readings = {};
    var self = this;
    el.querySelectorAll("[data-reading]").forEach(function (dd) {
      self.readings[dd.getAttribute("data-reading")] = dd;
    });
    this.errorEl = el.querySelector(".fig-error");
    this.liveEl = el.querySelector(".readings-live");
    this.marks = el.querySelector(".family-marks");
    this.marksTarget = this.marks ? JSON.parse(this.marks.getAttribute("data-target")) : null;
    if (this.marks) {
      // Each mark sits where the slider's thumb would be at that family position.
      this.marks.querySelectorAll(".family-mark").forEach(function (mark) {
        var p = parseFloat(mark.getAttribute("data-position"));
        mark.style.left = (50 * (p + 1)).toFixed(2) + "%";
      });
    }
    this.controls = el.querySelector(".controls");
    this.makePole();
    this.makeHand();
    var linkBox = el.querySelector(".ctl-link");
    if (linkBox) {
      LINK_CONTROLS[this.id] = { a: linkBox.querySelector("a.fig-link"), msg: linkBox.querySelector(".ctl-msg") };
      linkBox.hidden = false; // a state to link exists only while this runs
    }
    this.resetState();
    this.bind();
  }

  // A handle in the world, a slider like the ring, with the ring's hit area: a group of
  // class `cls` holding circle.{cls}-hit and `shape` (class {cls}-handle). Returns both.
  Figure.prototype.makeHandle = function (cls, label, shape) {
    var g = document.createElementNS(SVGNS, "g");
    setAttrs(g, {
      class: cls, tabindex: 0, role: "slider", visibility: "hidden",
      "aria-keyshortcuts": "ArrowLeft ArrowRight ArrowUp ArrowDown",
    });
    if (label) g.setAttribute("aria-label", label);
    var hit = document.createElementNS(SVGNS, "circle");
    setAttrs(hit, { class: cls + "-hit", r: this.layer.hit.getAttribute("r"), fill: "transparent" });
    var handle = document.createElementNS(SVGNS, shape);
    setAttrs(handle, { class: cls + "-handle" });
    g.appendChild(hit);
    g.appendChild(handle);
    this.world.appendChild(g);
    return { g: g, hit: hit, handle: handle };
  };

  // 2.8's hand: a knob at the end of the hand's arrow, turned like the pole is dragged.
  Figure.prototype.makeHand = function () {
    this.layer.knob = null;
    if (!this.options.hand || !this.layer.hand) return;
    var made = this.makeHandle("knob", (LABELS.controls || {}).hand, "circle");
    setAttrs(made.handle, { r: KNOB_OF_RING * parseFloat(this.layer.ring.getAttribute("r")) });
    this.layer.knob = made.g;
    this.layer.knobHit = made.hit;
    this.layer.knobHandle = made.handle;
  };

  // The pole handle and its checkbox, made here (with scripts off there is nothing to
  // move them): a small diamond in the world, a slider like the ring.
  Figure.prototype.makePole = function () {
    this.layer.pole = null;
    if (!this.options.pole || !this.controls) return;
    var C = LABELS.controls || {};
    var made = this.makeHandle("pole", C.pole, "polygon");
    this.layer.pole = made.g;
    this.layer.poleHit = made.hit;
    this.layer.poleHandle = made.handle;
    var label = document.createElement("label");
    label.className = "ctl ctl-pole";
    label.setAttribute("data-control", "pole");
    var box = document.createElement("input");
    box.type = "checkbox";
    box.name = "pole";
    var name = document.createElement("span");
    name.className = "ctl-label";
    name.textContent = C.pole || "Pole";
    label.appendChild(box);
    label.appendChild(document.createTextNode(" "));
    label.appendChild(name);
    if (C.pole_hint) {
      var hint = document.createElement("small");
      hint.className = "ctl-hint";
      hint.textContent = C.pole_hint;
      label.appendChild(hint);
    }
    // On show when the section adds the pole (spec.shown), else folded under "more"
    var more = this.controls.querySelector(".ctl-more");
    var before = (this.spec.shown || []).indexOf("pole") >= 0 ? more
      : this.controls.querySelector('[name="reset"]');
    before.parentNode.insertBefore(label, before);
  };

  // The figure's ONE state: what the reader chose, the answer drawn, and where the
  // figure's requests stand. update() reads nothing else. Reset starts it afresh (a
  // late answer to the old state is then ignored: its id is no longer awaited).
  Figure.prototype.resetState = function () {
    var d = this.defaults;
    var frame = copy(this.spec.frame);
    var old = this.state;
    this.state = {
      method: d.method,
      bones: d.bones || (d.lengths ? d.lengths.length : 2),
      lengths: copy(d.lengths),
      damping: d.damping,
      iterations: d.iterations,
      tolerance: d.tolerance,
      bend: d.bend || 1,
      smoothing: d.smoothing || null, // alpha when on, null when off
      pole: null, // the pole (hint) point [x, y] when on, null when off
      dragPole: false, // the held pointer drags the pole, not the ring
      angle: d.angle != null ? d.angle : null, // 2.8: the hand's angle (rad), or null
      dragHand: null, // 2.8: where the held pointer drags the hand's knob, or null
      pointer: copy(d.target), // where the reader wants the target
      // where the reader moved the ring, drawn there at once, until the answer to
      // the newest request comes (null: the ring is drawn at the answer's target)
      asked: null,
      init: d.init ? copy(d.init) : null, // explicit start pose for the next request
      cold: false, // next request starts from the default pose (bend), not the frame
      family: null, // family position to move to on the next request
      once: null, // options for the next request only (a table row's tolerance)
      frame: frame, // the server's answer currently drawn
      // what made `frame` beyond the controls: the start pose it was solved from
      // (null: the default start), its family move, tolerance and pole, and the
      // target it was solved at; null for the server's default frame. The link
      // carries it, so its reader gets this very solve.
      made: null,
      shown: null, // a frame drawn instead of `frame` (a replayed step), or null
      error: null, // the reader's message when the last request failed
      errorDetail: null, // the server's message, for the element's title
      // the start pose the figure's solve was given (the stall's, a table row's), with
      // the target and bone count it was given for; the replay starts there
      given: null,
      resting: 0, // frames left to keep solving while the ring rests
      dragging: old ? old.dragging : null, // the pointer holding the ring, or null
      sliding: false, // a family slider is held: its value is the reader's, not the server's
      bendFollowed: null, // the bend a family move turned the control to (+1/-1), said once
      request: {
        inflight: null, // id of the one request in flight
        body: null, // what it carries
        pending: false, // the state changed while it was in flight
        pendingInput: null, // earliest input time not yet answered
        sentInput: null, // input time carried by the request in flight
      },
    };
  };

  // Read-only views of the request state, for the drag benchmark's idle check
  // (ikchain.bench.lesson); nothing here reads them.
  Object.defineProperty(Figure.prototype, "inflight", {
    get: function () { return this.state.request.inflight; },
  });
  Object.defineProperty(Figure.prototype, "pending", {
    get: function () { return this.state.request.pending; },
  });

  // The smoothing factor this figure offers (server's choice), used when switched on.
  Figure.prototype.smoothingAlpha = function () {
    return this.defaults.smoothing || this.options.smoothing || null;
  };

  // The request for the current state. Warm start: the drawn frame's angles.
  Figure.prototype.body = function () {
    var s = this.state;
    var m = s.method;
    // Editable lengths (2.4) apply to the two-bone chain; otherwise the lesson's chain.
    var lengths = this.control("length1") && s.bones === 2 ? s.lengths
      : (this.options.lengths_by_bones || {})[String(s.bones)] || s.lengths;
    var frame = s.frame;
    var init = null;
    var pole = s.pole && !s.init ? s.pole : null; // an explicit start (stall, table row) wins
    if (takes(m, "init") && !pole) {
      if (s.init) init = s.init;
      else if (!s.cold && frame && frame.result.angles.length === lengths.length) init = frame.result.angles;
    }
    var body = {
      lengths: lengths,
      target: s.pointer,
      method: s.method,
      init: init,
      iterations: takes(m, "iterations") ? s.iterations : null,
      tolerance: takes(m, "tolerance") ? (s.once && s.once.tolerance != null ? s.once.tolerance : s.tolerance) : null,
      damping: takes(m, "damping") ? s.damping : null,
      // bend: the analytic branch; for the iterative methods the way the default
      // start bends and the side the server keeps the answer on (see frames.keep_bend).
      // with a pole the server chooses the bend (and starts from both bent poses)
      bend: takes(m, "bend") && !pole ? s.bend : null,
      smoothing: s.smoothing,
      // the target drawn now (the result's: with smoothing, where the ring is)
      previous_target: s.smoothing && frame ? frame.result.target : null,
      family: s.family,
    };
    if (pole) body.pole = pole;
    if (s.angle != null) body.angle = s.angle; // 2.8: the hand's angle
    for (var b = 0; b < BODY_HOOKS.length; b++) BODY_HOOKS[b](this, body); // choose.js: limits
    return body;
  };

  // Ask for a frame for the current state: at most one request in flight.
  Figure.prototype.request = function (inputTime) {
    var s = this.state;
    var q = s.request;
    if (inputTime != null && q.pendingInput == null) q.pendingInput = inputTime;
    // the target moved another way (a table row, a link, the stall): the ring waits
    // for that answer (moveTo draws its own point at once after this)
    if (s.asked !== s.pointer) s.asked = null;
    if (inputTime != null) {
      s.shown = null; // the reader's input ends a replay
      linkChanged(this); // the reader changed the figure: its link follows (when it rests)
    }
    if (q.inflight != null) {
      q.pending = true;
      return;
    }
    q.pending = false;
    if (s.init && s.pole) s.pole = null; // an explicit start pose: the pole gives way
    var body = this.body();
    q.sentInput = q.pendingInput;
    q.pendingInput = null;
    // The start this solve is given, kept for the replay while target and bones stay;
    // a solve from the default start, another target or other bones forget it.
    var given = s.given;
    if (s.init) {
      s.given = { init: copy(s.init), target: copy(body.target), bones: body.lengths.length };
    } else if (s.cold || (given && (JSON.stringify(body.target) !== JSON.stringify(given.target) ||
                                    body.lengths.length !== given.bones))) {
      s.given = null;
    }
    // One-shot parts of the state are consumed by the request that carries them.
    s.init = null;
    s.cold = false;
    s.family = null;
    s.once = null;
    q.body = body;
    q.inflight = transport.send(this, body);
  };

  Figure.prototype.receive = function (reply) {
    var s = this.state;
    var q = s.request;
    if (reply.id !== q.inflight) return; // stale: newest answer wins
    var received = performance.now();
    var sent = q.body;
    var family = q.body != null && q.body.family != null;
    var poled = q.body != null && q.body.pole != null;
    q.inflight = null;
    q.body = null;
    var input = q.sentInput;
    q.sentInput = null;
    if (reply.ok) {
      // Moving along the family can carry the chain over to the other bend: the
      // control follows the pose, so the next drag keeps what the reader sees.
      if (family && reply.frame.bend && reply.frame.bend !== s.bend) {
        s.bend = reply.frame.bend;
        s.bendFollowed = reply.frame.bend; // said beside the control (updateControls)
      }
      // The pole chose the bend: the (disabled) control shows it, and keeps it when
      // the pole goes off.
      if (poled && reply.frame.bend) s.bend = reply.frame.bend;
      s.frame = reply.frame;
      s.made = madeBy(sent, reply.frame);
      s.error = null;
      s.errorDetail = null;
    } else {
      // The server's message is for developers, in English; the reader gets the
      // page's language, and the detail stays in the element's title.
      s.error = (LABELS.messages && LABELS.messages.server_error) || "error";
      s.errorDetail = reply.error || null;
      s.resting = 0;
    }
    if (!q.pending) s.asked = null; // the newest request is answered
    this.update();
    if (input != null) this.logRedraw(reply.id, input, received);
    var self = this;
    if (q.pending) {
      this.request(null);
    } else if (reply.ok && reply.frame.settled === false && s.smoothing) {
      requestAnimationFrame(function () { if (self.state.request.inflight == null) self.request(null); });
    } else if (reply.ok && reply.frame.result.status === "max_iterations" && s.resting > 0 &&
               s.dragging == null) {
      // The ring rests and the solve stopped at its limit: keep solving, warm.
      s.resting -= 1;
      requestAnimationFrame(function () {
        var now = self.state.request;
        if (now.inflight == null && !now.pending) self.request(null);
      });
    } else {
      s.resting = 0;
    }
  };

  // For the extensions (replay.js): draw `frame` instead of the live answer, or the
  // live answer again with null.
  Figure.prototype.showFrame = function (frame) {
    this.state.shown = frame;
    this.update();
  };

  // For the extensions (replay.js): `frame` is the figure's answer now (the replay's
  // copy of the figure's own solve).
  // `sent`: the replay's request, which solved it (its start pose, tolerance, pole).
  Figure.prototype.adoptFrame = function (frame, sent) {
    this.state.frame = frame;
    this.state.made = madeBy(sent || {}, frame);
  };

  // What made a frame, from the request that asked for it (see state.made). With
  // smoothing the server solved at a target between the ring and the pointer: the
  // result's target, which is the one to solve at again.
  function madeBy(body, frame) {
    return {
      init: body.init ? copy(body.init) : null,
      family: body.family != null ? copy(body.family) : null,
      tolerance: body.tolerance != null ? body.tolerance : null,
      pole: body.pole ? copy(body.pole) : null,
      target: copy(frame.result.target),
    };
  }

  Figure.prototype.logRedraw = function (id, input, received) {
    var entry = {
      figure: this.id, id: id, input: input.input, handled: input.handled,
      received: received, drawn: performance.now(), painted: null,
    };
    var log = window.__ikchainRedraws;
    log.push(entry);
    if (log.length > REDRAW_LOG_MAX) log.splice(0, log.length - REDRAW_LOG_MAX);
    requestAnimationFrame(function () {
      entry.painted = performance.now();
      entry.local = input.local; // its frame came first (its callback was asked first)
    });
  };

  // ONE redraw of every layer, the readings and the controls from this.state.
  Figure.prototype.update = function () {
    var s = this.state;
    var f = s.shown || s.frame; // s.shown: a replayed step (replay.js) drawn instead
    var r = f.result;
    var L = this.layer;
    var joints = r.joints;
    var tip = joints[joints.length - 1];
    var target = r.target;
    var ring = s.asked && !s.shown ? s.asked : target; // the reader's input, drawn at once

    setAttrs(L.outer, { r: f.reach.outer });
    setAttrs(L.inner, { r: f.reach.inner });
    show(L.inner, f.reach.inner > 0);
    L.bones.setAttribute("points", pointsText(joints));
    this.drawJoints(joints);
    setAttrs(L.tip, { cx: tip[0], cy: tip[1] });
    setAttrs(L.gap, { x1: tip[0], y1: tip[1], x2: target[0], y2: target[1] });
    show(L.gap, !!f.gap);
    setAttrs(L.ring, { cx: ring[0], cy: ring[1] });
    setAttrs(L.hit, { cx: ring[0], cy: ring[1] });
    setAttrs(L.pointer, { cx: s.pointer[0], cy: s.pointer[1] });
    show(L.pointer, !!s.smoothing && f.settled === false);
    L.target.setAttribute("aria-valuetext", f.readings.target);
    if (L.ellipse) {
      // The server's ellipse (frames.ellipse_view), drawn as figures.py draws it; a
      // frame without one (a replayed step) hides it. At a singular pose ry is 0 and
      // only the long axis, a line segment, shows.
      var el = f.ellipse;
      show(L.ellipse, !!el);
      if (el) {
        var ec = el.centre;
        setAttrs(L.ellipseShape, {
          cx: ec[0], cy: ec[1], rx: el.radii[0], ry: el.radii[1],
          transform: "rotate(" + el.rotation + " " + ec[0] + " " + ec[1] + ")",
        });
        setAttrs(L.ellipseAxis, { x1: el.axis[0][0], y1: el.axis[0][1], x2: el.axis[1][0], y2: el.axis[1][1] });
      }
    }
    if (L.pole) {
      L.pole.setAttribute("visibility", s.pole ? "visible" : "hidden");
      if (s.pole) {
        var px = s.pole[0], py = s.pole[1], h = POLE_OF_RING * parseFloat(L.ring.getAttribute("r"));
        L.poleHandle.setAttribute("points", pointsText([[px + h, py], [px, py + h], [px - h, py], [px, py - h]]));
        setAttrs(L.poleHit, { cx: px, cy: py });
        L.pole.setAttribute("aria-valuetext", "(" + px + ", " + py + ")");
        L.pole.setAttribute("tabindex", "0");
      } else {
        L.pole.setAttribute("tabindex", "-1");
      }
    }

    if (L.knob) this.drawHand(f);

    var rd = f.readings;
    for (var key in this.readings) {
      if (!Object.prototype.hasOwnProperty.call(this.readings, key)) continue;
      var text;
      if (key === "reachable" && f.limits && rd.limits_reach) {
        // 2.5: the reach under the limits; the server formatted the distance
        text = (LABELS.readings["limited_" + rd.limits_reach] || "").replace("%min_error%", rd.min_error);
      } else if (key === "reachable") text = r.reachable ? LABELS.readings.yes : LABELS.readings.no;
      else if (key === "held") text = rd.held || LABELS.readings.held_none;
      // 2.8: whether the hand's angle can be met here, and the miss (min_error)
      else if (key === "status" && rd.hand_reach) text = fill(LABELS.readings["hand_" + rd.hand_reach], rd);
      else if (key === "status") text = (LABELS.status && LABELS.status[r.status]) || r.status;
      else text = rd[key];
      if (text != null && this.readings[key].textContent !== text) this.readings[key].textContent = text;
    }
    var j1 = this.readings.joint1; // kept in place while absent (2 bones): nothing moves
    if (j1) j1.parentNode.classList.toggle("is-absent", joints.length < 4);
    var held = this.readings.held;
    if (held) held.parentNode.hidden = !f.limits;
    var reach = this.readings.reachable;
    if (reach) {
      var label = reach.parentNode.querySelector("dt");
      var name = f.limits ? LABELS.readings.reachable_limited : LABELS.readings.reachable;
      if (label && name && label.textContent !== name) label.textContent = name;
    }

    this.el.classList.toggle("is-unreachable", !r.reachable);
    this.el.setAttribute("data-status", r.status);
    this.el.setAttribute("data-reachable", r.reachable ? "true" : "false");
    if (this.errorEl) {
      this.errorEl.hidden = !s.error;
      if (this.errorEl.textContent !== (s.error || "")) this.errorEl.textContent = s.error || "";
      if (s.errorDetail) this.errorEl.title = s.errorDetail;
      else this.errorEl.removeAttribute("title");
    }
    if (s.dragging == null) this.announce();
    this.updateControls();
    var linkControl = LINK_CONTROLS[this.id];
    if (linkControl) {
      var href = this.link();
      if (linkControl.a.getAttribute("href") !== href) linkControl.a.setAttribute("href", href);
    }
    for (var h = 0; h < HOOKS.length; h++) HOOKS[h](this);
  };

  // 2.8: the wrist's annulus, the wrist point, the hand's line and its knob, all where
  // the server put them (frame.hand); while the knob is held it follows the pointer.
  Figure.prototype.drawHand = function (f) {
    var L = this.layer, h = f.hand, t = f.result.target;
    show(L.wristReach, !!h);
    show(L.hand, !!h);
    show(L.knob, !!h);
    if (!h) return;
    var d = []; // the annulus as figures.annulus_path writes it
    [h.outer, h.inner].forEach(function (r) {
      var a = String(r), b = String(-r);
      d.push("M " + a + " 0 A " + a + " " + a + " 0 1 0 " + b + " 0 A " + a + " " + a + " 0 1 0 " + a + " 0 Z");
    });
    L.wristReach.setAttribute("d", d.join(" "));
    setAttrs(L.wrist, { cx: h.wrist[0], cy: h.wrist[1] });
    setAttrs(L.handLine, { x1: h.wrist[0], y1: h.wrist[1], x2: t[0], y2: t[1] });
    var k = this.state.dragHand || h.knob;
    setAttrs(L.handArrow, { x1: t[0], y1: t[1], x2: k[0], y2: k[1] });
    setAttrs(L.knobHandle, { cx: k[0], cy: k[1] });
    setAttrs(L.knobHit, { cx: k[0], cy: k[1] });
    L.knob.setAttribute("aria-valuetext", f.readings.hand_angle || "");
  };

  // The polite live region: one sentence of the key readings, written when the ring
  // rests (not on every drag frame), so a screen reader hears the answer, not a flood.
  Figure.prototype.announce = function () {
    if (!this.liveEl) return;
    var R = LABELS.readings || {};
    var rd = this.state.frame.readings;
    var st = this.state.frame.result.status;
    var status = (LABELS.status && LABELS.status[st]) || st;
    if (rd.hand_reach) status = fill(R["hand_" + rd.hand_reach], rd); // 2.8, as the status row
    var text = R.target + " " + rd.target + "; " + R.error + " " + rd.error + "; " + R.status + " " + status;
    if (this.liveEl.textContent !== text) this.liveEl.textContent = text;
  };

  Figure.prototype.drawJoints = function (joints) {
    var group = this.layer.joints;
    var circles = group.querySelectorAll(".joint");
    var want = joints.length - 2; // inner joints only: root and tip have their own marks
    for (var i = circles.length; i < want; i++) {
      var c = this.jointTemplate ? this.jointTemplate.cloneNode(false) : document.createElementNS(SVGNS, "circle");
      if (!this.jointTemplate) setAttrs(c, { class: "joint", r: this.options.joint_r });
      c.setAttribute("data-index", String(i + 1));
      group.appendChild(c);
    }
    for (var k = circles.length - 1; k >= want; k--) group.removeChild(circles[k]);
    circles = group.querySelectorAll(".joint");
    for (var j = 0; j < want; j++) setAttrs(circles[j], { cx: joints[j + 1][0], cy: joints[j + 1][1] });
  };

  Figure.prototype.control = function (name) {
    return this.controls ? this.controls.querySelector('[name="' + name + '"]') : null;
  };

  Figure.prototype.updateControls = function () {
    var s = this.state;
    var method = this.control("method");
    if (method) {
      if (method.value !== s.method) method.value = s.method;
      for (var mi = 0; mi < method.options.length; mi++) {
        var option = method.options[mi];
        var off = !fitsBones(option.value, s.bones); // the closed form: two bones only
        if (option.disabled !== off) option.disabled = off;
      }
    }
    var bones = this.control("bones");
    if (bones && bones.value !== String(s.bones)) bones.value = String(s.bones);
    var bend = this.control("bend");
    if (bend && bend.value !== String(s.bend)) bend.value = String(s.bend);
    if (bend && bend.disabled !== !!s.pole) bend.disabled = !!s.pole; // the pole decides
    var poleBox = this.control("pole");
    if (poleBox) poleBox.checked = !!s.pole;
    var M = LABELS.messages || {};
    this.controlMessage("bend", s.bendFollowed == null ? null
      : M[s.bendFollowed > 0 ? "bend_follows_family_ccw" : "bend_follows_family_cw"]);
    var damping = this.control("damping");
    if (damping) {
      damping.value = String(s.damping);
      damping.disabled = !takes(s.method, "damping");
      var out = this.el.querySelector('output[data-value="damping"]');
      if (out) out.textContent = damping.value;
    }
    var iterations = this.control("iterations");
    if (iterations) {
      if (document.activeElement !== iterations) iterations.value = String(s.iterations);
      iterations.disabled = !takes(s.method, "iterations");
    }
    for (var li = 1; li <= 2; li++) {
      var len = this.control("length" + li);
      if (len) {
        len.disabled = s.bones !== 2;
        if (document.activeElement !== len) len.value = String(s.lengths[li - 1]);
      }
    }
    if (this.marks) {
      var mt = this.marksTarget, ft = s.frame.result.target;
      // The marks belong to Table ③'s target: shown only while the figure is there.
      // Away from it they keep their place, empty: the controls below do not move.
      this.marks.classList.toggle("is-absent", !(s.bones === 3 && mt && Math.abs(ft[0] - mt[0]) < 1e-12 &&
                                                 Math.abs(ft[1] - mt[1]) < 1e-12));
    }
    var smoothing = this.control("smoothing");
    if (smoothing) smoothing.checked = !!s.smoothing;
    var family = this.control("family");
    var family2 = this.control("family2");
    if (family) {
      var fam = s.frame.family;
      var label = family.closest("[data-control]");
      if (label) label.classList.toggle("is-absent", s.bones !== 3 && s.bones !== 4);
      var label2 = family2 && family2.closest("[data-control]");
      if (label2) label2.classList.toggle("is-absent", s.bones !== 4);
      family.disabled = !fam;
      if (family2) family2.disabled = !(fam && fam.positions);
      // The sliders show the server's family positions (one for three bones, two
      // for four), except while the reader is moving one (their value is on its way).
      var asked = s.request.body != null && s.request.body.family != null;
      if (fam && !s.sliding && !asked && s.family == null) {
        if (fam.positions) {
          family.value = String(fam.positions[0]);
          if (family2) family2.value = String(fam.positions[1]);
        } else {
          family.value = String(fam.position);
        }
      }
    }
  };

  // ------------------------------------------------------------------ input
  Figure.prototype.worldFromEvent = function (event) {
    var known = placed.get(this);
    if (!known || known.at !== placement) {
      var m = this.world.getScreenCTM();
      if (!m) return null;
      known = { inverse: m.inverse(), at: placement };
      placed.set(this, known);
    }
    var p = this.svg.createSVGPoint();
    p.x = event.clientX;
    p.y = event.clientY;
    var w = p.matrixTransform(known.inverse);
    var e = this.extent;
    return [Math.max(-e, Math.min(e, w.x)), Math.max(-e, Math.min(e, w.y))];
  };

  // The ring follows the reader at once (as the pole and the hand's knob do); the
  // chain follows the server's answer. With smoothing the ring is where the server
  // eased it to: only the pointer's mark follows at once.
  Figure.prototype.moveTo = function (point, inputTime) {
    if (!point) return;
    var s = this.state;
    s.pointer = point;
    s.family = null;
    this.request(inputTime); // the request goes out first, then the ring is drawn
    if (!s.smoothing) s.asked = point;
    this.update();
  };

  // A held pointer moves the ring, or the pole when it was pressed on the pole.
  Figure.prototype.drag = function (point, inputTime) {
    if (this.state.dragHand) this.moveHand(point, inputTime);
    else if (this.state.dragPole) this.movePole(point, inputTime);
    else this.moveTo(point, inputTime);
  };

  // 2.8: the hand points from the ring as drawn toward the pointer; that direction
  // is the angle asked for (rad). On the ring itself it has none: nothing changes.
  Figure.prototype.moveHand = function (point, inputTime) {
    var s = this.state, t = s.frame.result.target;
    if (!point || s.angle == null || (point[0] === t[0] && point[1] === t[1])) return;
    s.angle = Math.atan2(point[1] - t[1], point[0] - t[0]);
    s.dragHand = point;
    this.update(); // the knob follows at once; the pose follows the server's answer
    this.request(inputTime);
  };

  Figure.prototype.movePole = function (point, inputTime) {
    if (!point || !this.state.pole) return;
    this.state.pole = point;
    this.update(); // the handle follows at once; the pose follows the server's answer
    this.request(inputTime);
  };

  Figure.prototype.bind = function () {
    var self = this;
    var svg = this.svg;
    var ring = this.layer.target;
    var poleEl = this.layer.pole;
    var knobEl = this.layer.knob; // 2.8's hand, dragged as the pole is
    // the pole handle, when it is shown, is dragged as the ring is
    function onPole(target) { return !!(poleEl && self.state.pole && poleEl.contains(target)); }
    function onKnob(target) { return !!(knobEl && knobEl.contains(target)); }
    function grabs(target) { return ring.contains(target) || onPole(target) || onKnob(target); }

    // A finger that lands on the ring drags it; one that lands anywhere else scrolls
    // the page. touch-action on an SVG child is ignored (it applies to CSS boxes,
    // and iOS Safari ignores pan-x pan-y), so the browser would start a pan and cancel
    // the pointer after a few pixels: a touch that begins on the ring is claimed here,
    // before the browser decides, by cancelling its touchstart and touchmoves.
    var fingerOnRing = false;
    svg.addEventListener("touchstart", function (event) {
      fingerOnRing = event.touches.length === 1 && grabs(event.target);
      if (fingerOnRing && event.cancelable) event.preventDefault();
    }, { passive: false });
    svg.addEventListener("touchmove", function (event) {
      if (fingerOnRing && event.cancelable) event.preventDefault();
    }, { passive: false });
    function fingerUp(event) { if (event.touches.length === 0) fingerOnRing = false; }
    svg.addEventListener("touchend", fingerUp);
    svg.addEventListener("touchcancel", fingerUp);

    var raw = false; // this drag's moves come as pointerrawupdate (see below)
    svg.addEventListener("pointerdown", function (event) {
      if (event.button !== undefined && event.button > 0) return;
      // A finger that lands off the ring is scrolling the page (see touchstart above);
      // a mouse or pen click anywhere moves the ring there.
      if (event.pointerType === "touch" && !grabs(event.target)) return;
      event.preventDefault();
      var pole = onPole(event.target), knob = onKnob(event.target);
      var held = knob ? knobEl : pole ? poleEl : ring;
      raw = false;
      placed.delete(self); // a press reads where the figure is now
      self.state.dragging = event.pointerId; // before focus: a drag's focus is no key's
      self.state.dragPole = pole;
      if (knob) self.state.dragHand = self.state.frame.hand.knob;
      try { svg.setPointerCapture(event.pointerId); } catch (err) { /* synthetic */ }
      held.classList.remove("keyboard");
      held.focus({ preventScroll: true });
      self.el.classList.add("is-dragging");
      self.state.resting = 0;
      self.drag(self.worldFromEvent(event), stamp(event));
    });
    // A drag is answered from pointerrawupdate where the browser has it: it arrives as
    // soon as the input does, while pointermove waits for the next animation frame, so
    // the answer could only be drawn a frame later (the server answers in well under a
    // frame). pointermove then only keeps the page from acting on the drag.
    svg.addEventListener("pointerrawupdate", function (event) {
      if (self.state.dragging !== event.pointerId) return;
      raw = true;
      self.drag(self.worldFromEvent(event), stamp(event));
    });
    svg.addEventListener("pointermove", function (event) {
      if (self.state.dragging !== event.pointerId) return;
      event.preventDefault();
      if (!raw) self.drag(self.worldFromEvent(event), stamp(event));
    });
    function end(event) {
      if (self.state.dragging !== event.pointerId) return;
      self.state.dragging = null;
      self.state.dragPole = false;
      var hand = self.state.dragHand;
      self.state.dragHand = null;
      self.el.classList.remove("is-dragging");
      if (hand) self.update(); // the knob goes back to where the server puts it
      self.rest();
    }
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("lostpointercapture", end);

    // The keyboard focus mark shows when the ring was reached or moved by keyboard,
    // not when a drag focused it.
    [ring, poleEl, knobEl].forEach(function (el) {
      if (!el) return;
      el.addEventListener("focus", function () {
        if (self.state.dragging == null) el.classList.add("keyboard");
      });
      el.addEventListener("blur", function () { el.classList.remove("keyboard"); });
    });
    // An arrow key's move in grid cells ([dx, dy]; Shift: the big step), or null.
    function arrowCells(event) {
      var step = event.shiftKey ? BIG_STEP_CELLS : STEP_CELLS;
      switch (event.key) {
        case "ArrowLeft": return [-step, 0];
        case "ArrowRight": return [step, 0];
        case "ArrowUp": return [0, step];
        case "ArrowDown": return [0, -step];
        default: return null;
      }
    }
    if (poleEl) poleEl.addEventListener("keydown", function (event) {
      var p = self.state.pole, d = arrowCells(event);
      if (!p || !d) return;
      event.preventDefault();
      poleEl.classList.add("keyboard");
      self.movePole([self.onGrid(p[0], d[0]), self.onGrid(p[1], d[1])], stamp(event));
    });
    // 2.8: right and up turn the hand counter-clockwise, left and down clockwise, by
    // whole degrees (the angle sent is that many degrees in radians)
    if (knobEl) knobEl.addEventListener("keydown", function (event) {
      var d = arrowCells(event), s = self.state;
      if (!d || s.angle == null) return;
      event.preventDefault();
      knobEl.classList.add("keyboard");
      var step = (d[0] || d[1]) > 0 ? 1 : -1, by = event.shiftKey ? HAND_BIG_STEP : HAND_STEP;
      s.angle = (Math.round(s.angle * 180 / Math.PI) + step * by) * Math.PI / 180;
      self.request(stamp(event));
    });
    ring.addEventListener("keydown", function (event) {
      var d = arrowCells(event);
      if (!d) return;
      event.preventDefault();
      ring.classList.add("keyboard");
      var p = self.state.pointer;
      self.moveTo([self.onGrid(p[0], d[0]), self.onGrid(p[1], d[1])], stamp(event));
      self.rest(); // after the move: its answer, or the one drawn, goes on solving
    });

    if (!this.controls) return;
    this.controls.disabled = false;
    this.controls.addEventListener("change", function (event) { self.onControl(event); });
    this.controls.addEventListener("input", function (event) {
      var name = event.target.name;
      if (name === "damping" || name === "family" || name === "family2") self.onControl(event);
    });
    this.controls.addEventListener("click", function (event) {
      var button = event.target.closest("button");
      if (!button) return;
      if (button.name === "reset") {
        self.resetState(); // a late answer to the old state is ignored
        self.controlMessage("iterations", null);
        self.controlMessage("length1", null);
        document.querySelectorAll("tr.is-loaded").forEach(function (t) { t.classList.remove("is-loaded"); });
        self.linkMessage(null);
        self.update();
        linkChanged(self); // the address follows the figure back to its defaults
      } else if (button.name === "stall") {
        self.state.resting = 0;
        self.stall();
      } else if (button.name === "cold") {
        self.solveFromStart();
      }
    });
    ["family", "family2"].forEach(function (name) {
      var slider = self.control(name);
      if (!slider) return;
      slider.addEventListener("pointerdown", function () { self.state.sliding = true; });
      slider.addEventListener("pointerup", function () { self.state.sliding = false; });
      slider.addEventListener("change", function () { self.state.sliding = false; });
    });
  };

  Figure.prototype.stall = function () {
    // The stall demo: the target and the all-zero start pose, both given by the server.
    var stall = this.options.stall;
    if (!stall) return;
    var target = stall.target, init = stall.init;
    var s = this.state;
    s.bones = init.length;
    // the stall is an iterative solver's: a method without iterations gives way
    if (!takes(s.method, "iterations") || !fitsBones(s.method, s.bones)) s.method = methodFor(s.bones, true, this.options.methods);
    s.pointer = copy(target);
    s.init = copy(init);
    s.family = null;
    this.request(stamp(null));
  };

  Figure.prototype.onControl = function (event) {
    this.state.resting = 0; // a changed option is shown as it is, not solved on past it
    if (this.setControl(event.target)) this.request(stamp(event));
  };

  // What control `el` now says, taken into the state: the one path for the reader's
  // controls and for a link's values (applyLink). False: nothing to ask (refused, or
  // not a control of the state); the message, if any, is beside the control.
  Figure.prototype.setControl = function (el) {
    var s = this.state;
    var value = el.value;
    switch (el.name) {
      case "method":
        s.method = value;
        break;
      case "bones":
        s.bones = parseInt(value, 10);
        if (!fitsBones(s.method, s.bones)) s.method = methodFor(s.bones, false, this.options.methods); // the closed form: two bones
        s.cold = true; // a different chain: start from the default pose
        break;
      case "bend":
        s.bend = parseInt(value, 10);
        s.bendFollowed = null; // the reader's own choice now
        s.cold = true; // iterative methods: the default start pose bends this way
        break;
      case "damping":
        s.damping = parseFloat(value);
        break;
      case "iterations":
        var n = this.checkIterations(el);
        if (n === null) return false; // refused: the previous value stays, the message says why
        s.iterations = n;
        break;
      case "smoothing":
        s.smoothing = el.checked ? this.smoothingAlpha() : null;
        break;
      case "pole":
        s.pole = el.checked ? copy(s.pole || this.options.pole) : null;
        break;
      case "length1":
      case "length2":
        var k = el.name === "length1" ? 0 : 1;
        var range = this.options.length_range || [parseFloat(el.min), parseFloat(el.max)];
        var L = this.checkNumber(el, "lengths", range[0], range[1], false, s.lengths[k]);
        if (L === null) return false;
        s.lengths = s.lengths.slice();
        s.lengths[k] = L;
        break;
      case "family":
      case "family2":
        if (s.bones === 4) {
          // Two positions: the moved slider's, and the other one exactly where the
          // server last put it (a slider's value is rounded to its step).
          var now = (s.family && s.family.length === 2) ? s.family
            : (s.frame.family && s.frame.family.positions) || [0, 0];
          s.family = el.name === "family" ? [parseFloat(value), now[1]] : [now[0], parseFloat(value)];
        } else {
          s.family = parseFloat(value);
        }
        break;
      default:
        return false;
    }
    return true;
  };

  // The ring comes to rest (drag released, key pressed): an iterative solve cut short
  // by its iteration limit may go on for a few more frames, warm from the last answer.
  // With a request in flight its answer carries the continuation on (receive); with
  // none (the last answer came in while the ring was still held), it starts here.
  Figure.prototype.rest = function () {
    var s = this.state;
    s.resting = REST_FRAMES;
    if (s.request.inflight != null || s.request.pending) return;
    if (s.error || s.shown || !s.frame || s.frame.result.status !== "max_iterations") return;
    s.resting -= 1;
    this.request(null);
  };

  // One grid step from value v (metres): the grid cell nearest v, plus `cells`,
  // clamped to the view. Integer cells over GRID: exact decimals, no drift.
  Figure.prototype.onGrid = function (v, cells) {
    var limit = Math.floor(this.extent * GRID);
    var k = Math.max(-limit, Math.min(limit, Math.round(v * GRID) + cells));
    return k / GRID;
  };

  // "Solve from the start pose": forget the drawn pose and run the current method
  // once from the default (slightly bent) start, with this damping and this many
  // iterations at most, and draw what it returns. No resting continuation after it:
  // the point is to see what this many iterations do.
  Figure.prototype.solveFromStart = function (inputTime) {
    this.state.resting = 0;
    this.state.cold = true;
    this.state.family = null;
    this.request(inputTime || stamp(null));
  };

  // A message beside a control, in the page's language; null clears it.
  Figure.prototype.controlMessage = function (name, message) {
    var control = this.control(name);
    var label = control && control.closest("[data-control]");
    var box = label && label.querySelector(".ctl-msg");
    if (!box) return;
    box.hidden = !message;
    if (box.textContent !== (message || "")) box.textContent = message || "";
  };

  // Max iterations as typed: a whole number in [0, cap] is taken; outside the range
  // the nearest bound is taken and said; anything else (2.5, -, abc, empty) is
  // refused with the previous value put back. Returns the value to use, or null.
  Figure.prototype.checkIterations = function (el) {
    var max = this.options.max_iterations || parseInt(el.max, 10);
    return this.checkNumber(el, "iterations", 0, max, true, this.state.iterations);
  };

  // A typed number for control `el`: in [min, max] (whole when `whole`) it is taken;
  // outside, the nearest bound is taken and said; not a number (or not whole) is
  // refused and `previous` put back. Messages are LABELS.messages[kind + "_clamped"
  // / "_refused"], in the page's language. Returns the value to use, or null.
  Figure.prototype.checkNumber = function (el, kind, min, max, whole, previous) {
    var M = LABELS.messages || {};
    var raw = String(el.value).trim();
    var n = raw === "" || (el.validity && el.validity.badInput) ? NaN : Number(raw);
    if (!isFinite(n) || (whole && Math.floor(n) !== n)) {
      el.value = String(previous);
      this.controlMessage(el.name, M[kind + "_refused"]);
      return null;
    }
    var clamped = Math.max(min, Math.min(max, n));
    if (clamped !== n) {
      el.value = String(clamped);
      this.controlMessage(el.name, M[kind + "_clamped"]);
    } else {
      this.controlMessage(el.name, null);
    }
    return clamped;
  };

  // A table row's state loaded into this figure (see tables._link): its target,
  // method, bone count, options and start (a given pose, or the default one), and
  // the bend its answer has. Tolerance is for this one solve; the rest stays.
  Figure.prototype.loadRow = function (row) {
    var s = this.state;
    s.resting = 0;
    s.sliding = false;
    if (row.bones) s.bones = row.bones;
    if (row.method) s.method = row.method;
    if (row.iterations != null) s.iterations = row.iterations;
    if (row.damping != null) s.damping = row.damping;
    if (row.bend) s.bend = row.bend;
    if (this.control("length1")) s.lengths = copy(this.defaults.lengths);
    s.pointer = copy(row.target);
    s.init = row.init ? copy(row.init) : null;
    s.cold = !!row.cold;
    s.once = row.tolerance != null ? { tolerance: row.tolerance } : null;
    s.family = null;
    s.smoothing = null;
    // the row's parts that extensions keep (2.5: limits preset, the pull), as a link's
    for (var i = 0; i < LINK_PARTS.length; i++) {
      var key = LINK_PARTS[i].key;
      if (row[key] != null) LINK_PARTS[i].apply(this, String(row[key]));
    }
    this.controlMessage("iterations", null);
    this.request(stamp(null));
  };

  // ------------------------------------------------------------------ links
  // A figure's state in the page's address, as a fragment one figure at a time:
  //   #s22?method=ccd&bones=2&bend=-1&target=1.2,0.7&iterations=64&damping=1
  // (the section's key, then what the reader chose). Opening such a link sets the
  // figure's state through the controls' own path (setControl: the same clamping and
  // the same messages) and asks the server for that state solved from the start pose,
  // exactly as the server computes it. Numbers are written as JavaScript's shortest
  // exact form, so a target read back is the very target written.
  //
  // The link carries the solve that made the drawn frame too (state.made): its start
  // pose (init=, the angles in radians), its family move (family=), a tolerance other
  // than the figure's (tolerance=) and the pole (pole=), and the target it was solved
  // at. Its reader sends the very request that made the sender's frame, so both see
  // the same status and the same joints, not a fresh solve from the start pose.
  Figure.prototype.link = function () {
    var s = this.state;
    var made = s.made;
    var target = made ? made.target : s.pointer;
    function list(v) { return v.map(function (x) { return String(x); }).join(","); }
    var parts = [];
    // a control this figure does not show is not in its link (2.1: analytic, 2 bones)
    if (this.control("method")) parts.push("method=" + s.method);
    if (this.control("bones")) parts.push("bones=" + s.bones);
    if (this.control("bend")) parts.push("bend=" + s.bend);
    parts.push("target=" + list(target));
    if (this.control("iterations")) parts.push("iterations=" + s.iterations);
    if (this.control("damping")) parts.push("damping=" + s.damping);
    if (made && made.init) parts.push("init=" + list(made.init));
    if (made && made.family != null) parts.push("family=" + list([].concat(made.family)));
    if (made && made.tolerance != null && made.tolerance !== s.tolerance) parts.push("tolerance=" + made.tolerance);
    if (made && made.pole) parts.push("pole=" + list(made.pole));
    if (s.angle != null) parts.push("angle=" + s.angle); // 2.8: the hand's angle (rad)
    for (var i = 0; i < LINK_PARTS.length; i++) {
      var value = LINK_PARTS[i].read(this);
      if (value != null) parts.push(LINK_PARTS[i].key + "=" + encodeURIComponent(value));
    }
    return "#" + this.spec.key + "?" + parts.join("&");
  };

  // The link's message beside "link to this figure" (what no control of its own
  // says: method, bones, bend, damping, target, limits); null clears it.
  Figure.prototype.linkMessage = function (message) {
    var box = LINK_CONTROLS[this.id] && LINK_CONTROLS[this.id].msg;
    if (!box) return;
    box.hidden = !message;
    if (box.textContent !== (message || "")) box.textContent = message || "";
  };

  // A link's values (strings, by key) into the state; then one request, from the
  // default start pose. A value the figure does not take is said in the page's
  // language and the figure's own is kept; one out of range is clamped and said.
  Figure.prototype.applyLink = function (params) {
    var s = this.state;
    var M = LABELS.messages || {};
    var said = [];
    var self = this;
    function has(key) { return Object.prototype.hasOwnProperty.call(params, key); }
    function option(name, value) { // a select's option with this value, or null
      var el = self.control(name);
      if (!el) return null;
      for (var i = 0; i < el.options.length; i++) if (el.options[i].value === value) return el;
      return null;
    }
    function number(text) { return /^\s*$/.test(text) ? NaN : Number(text); }
    s.resting = 0;
    s.sliding = false;
    s.bendFollowed = null;
    var el;
    // bones first: the method must fit them
    // (a value the figure already has is taken as it is, with or without its control)
    if (has("bones") && params.bones !== String(s.bones)) {
      el = option("bones", params.bones);
      if (el) { el.value = params.bones; this.setControl(el); } else said.push(M.bones_refused);
    }
    if (has("method") && params.method !== s.method) {
      el = option("method", params.method);
      if (el && fitsBones(params.method, s.bones)) { el.value = params.method; this.setControl(el); }
      else said.push(M.method_refused);
    }
    if (has("bend")) {
      var b = number(params.bend);
      el = this.control("bend");
      if (!isFinite(b) || b === 0 || !el) said.push(M.bend_refused);
      else {
        el.value = b > 0 ? "1" : "-1";
        this.setControl(el);
        if (b !== 1 && b !== -1) said.push(M.bend_clamped);
      }
    }
    if (has("damping")) {
      var d = number(params.damping);
      el = this.control("damping");
      if (!isFinite(d) || !el) said.push(M.damping_refused);
      else {
        el.value = String(d); // the slider's own range and step decide what it holds
        this.setControl(el);
        if (s.damping !== d) said.push(M.damping_clamped);
      }
    }
    if (has("iterations") && (el = this.control("iterations"))) {
      el.value = params.iterations; // not a number: the box holds "", refused as typed
      this.setControl(el); // its own message, beside the box, as when typed there
    }
    if (has("target")) {
      var xy = params.target.split(",");
      var x = number(xy[0]), y = xy.length === 2 ? number(xy[1]) : NaN;
      if (!isFinite(x) || !isFinite(y)) said.push(M.target_refused);
      else {
        var e = this.extent; // where a drag or the keys can put the ring
        var p = [Math.max(-e, Math.min(e, x)), Math.max(-e, Math.min(e, y))];
        if (p[0] !== x || p[1] !== y) said.push(M.target_clamped);
        s.pointer = p;
      }
    }
    for (var i = 0; i < LINK_PARTS.length; i++) {
      var part = LINK_PARTS[i];
      if (!has(part.key)) continue;
      var message = part.apply(this, params[part.key]);
      if (message) said.push(message);
    }
    // The solve that made the sender's frame: its start pose, family move, tolerance
    // and pole (Figure.link). Without them, the state solved from its start pose.
    function numbers(key, count) { // count finite numbers, or null (then refused)
      if (!has(key)) return null;
      var v = params[key].split(",").map(number);
      if (v.length !== count || !v.every(isFinite)) { said.push(M.pose_refused); return null; }
      return v;
    }
    s.init = takes(s.method, "init") ? numbers("init", s.bones) : null;
    s.cold = s.init == null;
    s.family = null;
    if (has("family") && (s.bones === 3 || s.bones === 4)) {
      var f = numbers("family", s.bones === 4 ? 2 : 1);
      if (f) s.family = s.bones === 4 ? f : f[0];
    }
    s.once = null;
    var tol = has("tolerance") ? number(params.tolerance) : NaN;
    if (isFinite(tol) && tol > 0) s.once = { tolerance: tol };
    var pole = this.options.pole ? numbers("pole", 2) : null;
    if (pole) { s.pole = pole; s.init = null; s.cold = true; }
    if (has("angle") && this.options.hand) { // 2.8: the hand's angle (rad)
      var angle = number(params.angle);
      if (isFinite(angle)) s.angle = angle; else said.push(M.angle_refused);
    }
    this.linkMessage(said.join(" ") || null);
    this.request(stamp(null));
  };

  // The address's figure state, if it names one: {fig, params}, or null.
  function linkFromUrl() {
    var hash = location.hash.replace(/^#/, "");
    var q = hash.indexOf("?");
    if (q < 0) return null; // "#s22" alone is a place in the page, not a state
    var fig = window.__ikchainFigures["fig-" + hash.slice(0, q)];
    if (!fig) return null;
    var params = {};
    hash.slice(q + 1).split("&").forEach(function (pair) {
      if (!pair) return;
      var eq = pair.indexOf("=");
      var key = eq < 0 ? pair : pair.slice(0, eq);
      var value = eq < 0 ? "" : pair.slice(eq + 1);
      try {
        key = decodeURIComponent(key);
        value = decodeURIComponent(value);
      } catch (err) {
        value = "\u0000"; // not decodable: a value no part takes, refused as such
      }
      // a typed minus sign (U+2212) is a minus
      params[key] = value.replace(/\u2212/g, "-").trim();
    });
    return { fig: fig, params: params };
  }

  function applyUrl(scroll) {
    var link = linkFromUrl();
    if (link) {
      link.fig.applyLink(link.params);
      if (scroll) (link.fig.el.querySelector(".fig-canvas") || link.fig.el).scrollIntoView({ block: "start" });
    }
    doc.classList.add("link-ready");
  }

  // The figure the reader changed last owns the address: written (replaceState, no
  // history entry) once the figure rests, at most every LINK_DELAY ms, never mid-drag.
  var LINK_DELAY = 200;
  var linkTimer = null;
  var linkFigure = null;
  function linkChanged(fig) {
    linkFigure = fig;
    if (linkTimer == null) linkTimer = setTimeout(writeLink, LINK_DELAY);
  }
  function writeLink() {
    linkTimer = null;
    var fig = linkFigure;
    if (!fig) return;
    var s = fig.state;
    if (s.dragging != null || s.request.inflight != null || s.request.pending) {
      linkTimer = setTimeout(writeLink, LINK_DELAY);
      return;
    }
    linkFigure = null;
    var href = fig.link();
    if (location.hash !== href && window.history && history.replaceState) {
      try { history.replaceState(history.state, "", href); } catch (err) { /* sandboxed */ }
    }
  }

  // "Link to this figure": its href is the state; a click puts it in the address
  // bar and copies the whole address, and says whether the copy worked.
  function bindLinks() {
    Object.keys(LINK_CONTROLS).forEach(function (id) {
      var fig = window.__ikchainFigures[id];
      var a = LINK_CONTROLS[id].a;
      if (!fig || !a) return;
      a.addEventListener("click", function (event) {
        event.preventDefault();
        var M = LABELS.messages || {};
        var href = fig.link();
        try { history.replaceState(history.state, "", href); } catch (err) { /* sandboxed */ }
        var url = location.href;
        var done = function () { fig.linkMessage(M.link_copied); };
        var failed = function () { fig.linkMessage(M.link_copy_failed); };
        if (navigator.clipboard && navigator.clipboard.writeText && window.isSecureContext) {
          navigator.clipboard.writeText(url).then(done, failed);
        } else {
          failed();
        }
      });
    });
  }

  // For the extensions: the one transport, the hooks, and the page's data.
  window.ikchainLesson = {
    transport: transport, hooks: HOOKS, bodyHooks: BODY_HOOKS, data: DATA, labels: LABELS, stamp: stamp,
    methods: METHODS, takes: takes, linkParts: LINK_PARTS, fill: fill, pointsText: pointsText,
  };

  // Linked tables: a row with data-row loads into the figure it names.
  function bindRows() {
    function load(tr) {
      var fig = window.__ikchainFigures[tr.getAttribute("data-figure")];
      if (!fig) return;
      var row;
      try { row = JSON.parse(tr.getAttribute("data-row")); } catch (err) { return; }
      var table = tr.closest("table");
      if (table) table.querySelectorAll("tr.is-loaded").forEach(function (t) { t.classList.remove("is-loaded"); });
      document.querySelectorAll("tr.is-loaded").forEach(function (t) { t.classList.remove("is-loaded"); });
      tr.classList.add("is-loaded");
      fig.loadRow(row);
      // The drawing, not the whole figure: with its replay panel the figure can be
      // taller than the window, and "nearest" would then show the panel's end.
      (fig.el.querySelector(".fig-canvas") || fig.el).scrollIntoView({ block: "nearest" });
    }
    var hint = (LABELS.page && LABELS.page.load_row) || "";
    document.querySelectorAll("tr.row-link").forEach(function (tr) {
      // Only a running script can load a row: it makes the rows focusable and says so.
      tr.tabIndex = 0;
      if (hint) tr.title = hint;
      tr.addEventListener("click", function () { load(tr); });
      tr.addEventListener("keydown", function (event) {
        if (event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        load(tr);
      });
    });
  }

  // ------------------------------------------------------------------ start
  function start() {
    var figures = DATA.figures || {};
    Object.keys(figures).forEach(function (id) {
      var el = document.getElementById(id);
      if (!el || !el.querySelector("svg.ik-figure")) return;
      var fig = new Figure(el, figures[id]);
      window.__ikchainFigures[id] = fig;
      fig.update();
    });
    bindRows();
    bindLinks();
    transport.connect();
    doc.classList.add("js-ready");
    // A link in the address: applied once every script has attached its part of the
    // state (choose.js's limits), i.e. after the deferred scripts, at DOMContentLoaded.
    var onLoad = function () {
      applyUrl(true);
      window.addEventListener("hashchange", function () { applyUrl(false); });
    };
    if (late || document.readyState === "complete") setTimeout(onLoad, 0); // it is under way or past
    else document.addEventListener("DOMContentLoaded", onLoad);
  }

  var late = document.readyState === "loading"; // start() then runs at DOMContentLoaded
  if (late) document.addEventListener("DOMContentLoaded", start);
  else start();
})();
