/* ikchain lesson page: section 2.5's joint limits and preferred pose (drawing only).
 *
 * The figure's state gains `choose: {limits: preset, rest: weight}`; a body hook adds
 * the preset's limits and the preferred pose (radians, from the server's page data)
 * to the figure's requests, and an update hook draws the server's layers: the
 * reachable set under the limits (cells the server classified by the library's
 * min_error, a path in cell units with its transform), each joint's wedge
 * (frame.limits.arcs, computed by the server from the solved pose, darker where
 * frame.limits.at_limit says the joint sits at a bound) and the preferred
 * pose as a faint chain (its joints, from the server). Nothing here computes a
 * position or an angle. The limits layer and its colours are the server's SVG
 * (limits_page.limits_layer); which method takes the pull is the server's word
 * (API.takes). The panel changes only its own part of the figure's state.
 */
(function () {
  "use strict";

  var API = window.ikchainLesson;
  if (!API) return;
  var WORDS = (API.labels && API.labels.choose) || {};
  var SVGNS = "http://www.w3.org/2000/svg";
  var panels = {};

  function Panel(el, fig) {
    this.el = el;
    this.fig = fig;
    this.options = fig.options.limits;
    this.select = el.querySelector('select[name="limits"]');
    this.restSelect = el.querySelector('select[name="rest"]');
    this.rest = fig.options.rest;
    this.note = el.querySelector(".choose-note");
    this.layer = this.ensureLayer();
    var self = this;
    this.select.addEventListener("change", function (event) {
      self.state().limits = event.target.value;
      // A start pose inside the new limits: the default one (clipped by the solver).
      fig.solveFromStart(API.stamp(event));
    });
    this.restSelect.addEventListener("change", function (event) {
      self.state().rest = parseFloat(event.target.value) || 0;
      fig.request(API.stamp(event));
    });
    el.querySelector(".choose-controls").disabled = false;
  }

  // The preferred pose for the figure's bone count when its pull is on and the
  // method takes it (the server's method table), or null.
  Panel.prototype.restPose = function () {
    var s = this.fig.state;
    if (!this.state().rest || !API.takes(s.method, "rest") || !this.rest) return null;
    return this.rest.poses[String(s.bones)] || null;
  };

  Panel.prototype.state = function () {
    var s = this.fig.state;
    if (!s.choose) s.choose = { limits: this.options["default"], rest: 0 };
    return s.choose;
  };

  // The limits of the current preset for the figure's bone count, or null.
  Panel.prototype.limits = function () {
    var s = this.fig.state;
    var preset = this.options.presets[this.state().limits] || {};
    var entry = preset[String(s.bones)];
    return entry ? entry.limits : null;
  };

  // The server draws the limits layer into every figure that offers limits (hidden
  // while they are off); the panel adds only the preferred pose's faint chain.
  Panel.prototype.ensureLayer = function () {
    var world = this.fig.svg.querySelector("g.world");
    var layer = world.querySelector(".limits-layer");
    if (!layer) return null;
    if (!world.querySelector(".rest-pose")) {
      var ghost = document.createElementNS(SVGNS, "polyline");
      ghost.setAttribute("class", "rest-pose");
      ghost.setAttribute("fill", "none");
      ghost.setAttribute("stroke", "#805ad5");
      ghost.setAttribute("stroke-width", "0.014");
      ghost.setAttribute("stroke-dasharray", "0.03 0.02");
      ghost.setAttribute("stroke-linecap", "round");
      world.insertBefore(ghost, layer.nextSibling);
    }
    return layer;
  };

  // The panel's layers, from the figure's state, at the end of the figure's update().
  Panel.prototype.update = function () {
    var s = this.fig.state;
    var frame = s.shown || s.frame;
    var on = this.limits() != null && !!frame.limits;
    var preset = (this.options.presets[this.state().limits] || {})[String(s.bones)];
    var reach = this.layer.querySelector(".limit-reach");
    var reachPath = on && preset ? preset.reach : "";
    if (reach.getAttribute("d") !== reachPath) reach.setAttribute("d", reachPath);
    // the path is in cell units; the server's transform places it in metres
    var placed = on && preset ? preset.reach_transform || "" : "";
    if (reach.getAttribute("transform") !== placed) reach.setAttribute("transform", placed);
    var group = this.layer.querySelector(".limit-arcs");
    var arcs = on ? frame.limits.arcs : [];
    var paths = group.querySelectorAll(".limit-arc");
    for (var i = paths.length; i < arcs.length; i++) {
      var p = document.createElementNS(SVGNS, "path");
      p.setAttribute("class", "limit-arc");
      group.appendChild(p);
    }
    for (var k = paths.length - 1; k >= arcs.length; k--) group.removeChild(paths[k]);
    paths = group.querySelectorAll(".limit-arc");
    var held = (on && frame.limits.at_limit) || [];
    for (var j = 0; j < arcs.length; j++) {
      paths[j].setAttribute("d", arcs[j]);
      // a joint at a bound (the result's at_limit): its wedge drawn darker
      paths[j].setAttribute("class", held[j] ? "limit-arc at-limit" : "limit-arc");
    }
    this.layer.setAttribute("visibility", on ? "visible" : "hidden");
    var ghost = this.fig.svg.querySelector(".rest-pose");
    var pose = this.restPose();
    if (pose) {
      var text = pose.joints.map(function (p) { return p[0] + "," + p[1]; }).join(" ");
      if (ghost.getAttribute("points") !== text) ghost.setAttribute("points", text);
    }
    ghost.setAttribute("visibility", pose ? "visible" : "hidden");
    var restValue = String(this.state().rest);
    if (parseFloat(this.restSelect.value) !== this.state().rest) {
      for (var o = 0; o < this.restSelect.options.length; o++) {
        if (parseFloat(this.restSelect.options[o].value) === this.state().rest) this.restSelect.selectedIndex = o;
      }
    }
    if (this.select.value !== this.state().limits) this.select.value = this.state().limits;
    var notes = [];
    if (this.state().rest && !API.takes(s.method, "rest")) notes.push(WORDS.rest_note);
    // The body hook sends no bend with limits or a pull (they pick the side): the bend
    // control would promise what the figure does not do, so it is off and says why.
    var bend = this.fig.control("bend");
    var decided = this.limits() ? WORDS.bend_limits_note : pose ? WORDS.bend_rest_note : "";
    if (bend) bend.disabled = !!decided;
    if (decided) notes.push(decided);
    var note = notes.join(" ");
    if (this.note.textContent !== note) this.note.textContent = note;
    this.fig.el.setAttribute("data-limits", on ? this.state().limits : "free");
    this.fig.el.setAttribute("data-rest", pose ? restValue : "0");
  };

  function attach() {
    var figures = window.__ikchainFigures || {};
    document.querySelectorAll(".choose[data-choose-for]").forEach(function (el) {
      var fig = figures[el.getAttribute("data-choose-for")];
      if (!fig || !fig.options.limits) return;
      var panel = new Panel(el, fig);
      if (panel.layer) panels[fig.id] = panel;
    });
    window.__ikchainChoose = panels;
    API.bodyHooks.push(function (fig, body) {
      var panel = panels[fig.id];
      if (!panel) return;
      var limits = panel.limits();
      body.limits = limits;
      // With limits, the start pose is the solver's own (clipped into them), and the
      // answer is not mirrored to a bend direction (the mirror may break the limits).
      if (limits) body.bend = null;
      var rest = panel.restPose();
      body.rest = rest ? rest.angles : null;
      body.rest_weight = rest ? panel.state().rest : null;
      if (rest) body.bend = null; // the pull picks the member; no mirror to a bend
    });
    API.hooks.push(function (fig) {
      var panel = panels[fig.id];
      if (panel) panel.update();
    });
    // The preset is part of the figure's link (lesson.js: Figure.link / applyLink); a
    // link's preset is taken only if the select offers it, as the select would.
    API.linkParts.push({
      key: "limits",
      read: function (fig) {
        var panel = panels[fig.id];
        return panel ? panel.state().limits : null;
      },
      apply: function (fig, raw) {
        var panel = panels[fig.id];
        if (!panel) return null;
        var offered = false;
        for (var i = 0; i < panel.select.options.length; i++) {
          if (panel.select.options[i].value === raw) offered = true;
        }
        if (!offered) return (API.labels.messages || {}).limits_refused;
        panel.state().limits = raw;
        return null;
      },
    });
    // ... and so is the pull toward the preferred pose, taken only if offered.
    API.linkParts.push({
      key: "rest",
      read: function (fig) {
        var panel = panels[fig.id];
        return panel && panel.state().rest ? String(panel.state().rest) : null;
      },
      apply: function (fig, raw) {
        var panel = panels[fig.id];
        if (!panel) return null;
        for (var i = 0; i < panel.restSelect.options.length; i++) {
          if (parseFloat(panel.restSelect.options[i].value) === parseFloat(raw)) {
            panel.state().rest = parseFloat(raw);
            return null;
          }
        }
        return (API.labels.messages || {}).rest_refused;
      },
    });
    Object.keys(panels).forEach(function (id) { panels[id].fig.update(); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach);
  else attach();
})();
