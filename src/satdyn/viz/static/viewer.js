// satdyn.viz viewer: one scene read from the JSON block #satdyn-data, drawn with three.js (global THREE).
// Conventions: SI units, z up, rotation matrices row-major 9-vectors mapping child to parent components,
// quaternions scalar-last [x, y, z, w].  The URL hash sets the initial state (see docs/viz.md), e.g.
// #mode=2&t=0.5, #joint=shoulder:0.8,elbow:-0.4, #t=1.2, #step=5; "ui=0" hides the panel.
(function () {
  "use strict";
  const DATA = JSON.parse(document.getElementById("satdyn-data").textContent);
  const HASH = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  const stateEl = document.getElementById("satdyn-state");
  const panel = document.getElementById("satdyn-panel");
  if (HASH.get("ui") === "0") { panel.style.display = "none"; document.getElementById("satdyn-help").style.display = "none"; }

  // ---------------------------------------------------------------- renderer, camera, lights
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setSize(window.innerWidth, window.innerHeight);
  renderer.domElement.id = "satdyn-canvas";
  document.body.insertBefore(renderer.domElement, document.body.firstChild);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f5f7);
  const cam = DATA.camera;
  const camera = new THREE.PerspectiveCamera(cam.fov, window.innerWidth / window.innerHeight, cam.near, cam.far);
  camera.up.set(0, 0, 1);
  const target = new THREE.Vector3().fromArray(cam.target);
  camera.position.fromArray(cam.eye);
  camera.lookAt(target);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8f99, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.4);
  sun.position.set(0.4, -0.6, 1.0);
  scene.add(sun);

  // Follow the window's size at every frame (a headless or embedded page may change it after load).
  let viewport = [0, 0];
  function fitViewport() {
    const w = window.innerWidth, h = window.innerHeight;
    if (w === viewport[0] && h === viewport[1]) return;
    viewport = [w, h];
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    renderer.setSize(w, h);
  }

  // A small orbit control: left drag turns about the target (z up), right drag / shift-drag pans, wheel zooms.
  (function orbit() {
    let drag = null;
    const el = renderer.domElement;
    el.addEventListener("contextmenu", function (e) { e.preventDefault(); });
    el.addEventListener("pointerdown", function (e) {
      drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey };
      el.setPointerCapture(e.pointerId);
    });
    el.addEventListener("pointerup", function () { drag = null; });
    el.addEventListener("pointermove", function (e) {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY;
      const offset = camera.position.clone().sub(target);
      if (drag.pan) {
        const scale = offset.length() * 2 * Math.tan(camera.fov * Math.PI / 360) / el.clientHeight;
        const right = new THREE.Vector3().setFromMatrixColumn(camera.matrix, 0);
        const up = new THREE.Vector3().setFromMatrixColumn(camera.matrix, 1);
        const shift = right.multiplyScalar(-dx * scale).add(up.multiplyScalar(dy * scale));
        target.add(shift); camera.position.add(shift);
      } else {
        const r = offset.length();
        let az = Math.atan2(offset.y, offset.x) - dx * 0.008;
        let el_ = Math.asin(Math.max(-1, Math.min(1, offset.z / r))) + dy * 0.008;
        el_ = Math.max(-1.55, Math.min(1.55, el_));
        offset.set(r * Math.cos(el_) * Math.cos(az), r * Math.cos(el_) * Math.sin(az), r * Math.sin(el_));
        camera.position.copy(target).add(offset);
      }
      camera.lookAt(target);
    });
    el.addEventListener("wheel", function (e) {
      e.preventDefault();
      const offset = camera.position.clone().sub(target).multiplyScalar(Math.exp(e.deltaY * 0.001));
      camera.position.copy(target).add(offset);
      camera.lookAt(target);
    }, { passive: false });
  })();

  // ---------------------------------------------------------------- helpers
  function el(tag, attrs, parent) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) { if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]); }
    (parent || panel).appendChild(e);
    return e;
  }
  function fmt(x, digits) { return Number(x).toPrecision(digits || 4).replace(/\.?0+(e|$)/, "$1"); }
  const VIRIDIS = [[0.267, 0.005, 0.329], [0.283, 0.141, 0.458], [0.254, 0.265, 0.530], [0.207, 0.372, 0.553],
    [0.164, 0.471, 0.558], [0.128, 0.567, 0.551], [0.135, 0.659, 0.518], [0.267, 0.749, 0.441],
    [0.478, 0.821, 0.318], [0.741, 0.873, 0.150], [0.993, 0.906, 0.144]];
  function viridis(s) {
    s = Math.max(0, Math.min(1, isFinite(s) ? s : 0)) * (VIRIDIS.length - 1);
    const i = Math.min(Math.floor(s), VIRIDIS.length - 2), f = s - i, a = VIRIDIS[i], b = VIRIDIS[i + 1];
    return [a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2])];
  }
  function colorbar(lo, hi, label) {
    el("div", { class: "info", text: label });
    const bar = el("div", { class: "bar" });
    const stops = VIRIDIS.map(function (c, i) {
      return "rgb(" + c.map(function (v) { return Math.round(255 * v); }).join(",") + ") " + (100 * i / (VIRIDIS.length - 1)) + "%";
    });
    bar.style.background = "linear-gradient(to right, " + stops.join(", ") + ")";
    const labels = el("div", { class: "bar-labels" });
    el("span", { text: fmt(lo, 3) }, labels); el("span", { text: fmt(hi, 3) }, labels);
  }
  function slider(label, min, max, step, value, oninput) {
    const lab = el("label", { class: "row", text: label });
    const out = el("span", { class: "value" }, lab);
    const input = el("input", { type: "range", min: min, max: max, step: step });
    input.value = value;
    out.textContent = fmt(value, 3);
    input.addEventListener("input", function () { out.textContent = fmt(input.value, 3); oninput(Number(input.value)); });
    return { input: input, set: function (v) { input.value = v; out.textContent = fmt(v, 3); } };
  }
  function hashNumber(name, fallback) {
    const v = HASH.has(name) ? Number(HASH.get(name)) : NaN;
    return isFinite(v) ? v : fallback;
  }
  // Row-major 3x3 products and the matrix of a scalar-last quaternion (normalised here).
  function mul3(A, B) {
    const C = new Array(9);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++)
      C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    return C;
  }
  function apply3(A, v) {
    return [A[0] * v[0] + A[1] * v[1] + A[2] * v[2], A[3] * v[0] + A[4] * v[1] + A[5] * v[2],
      A[6] * v[0] + A[7] * v[1] + A[8] * v[2]];
  }
  function quatMatrix(x, y, z, w) {
    const n = Math.hypot(x, y, z, w) || 1; x /= n; y /= n; z /= n; w /= n;
    return [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
      2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
      2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)];
  }
  function axisAngle(a, th) {            // Rodrigues: exp(th skew(a)), a unit
    const c = Math.cos(th), s = Math.sin(th), t = 1 - c, x = a[0], y = a[1], z = a[2];
    return [t * x * x + c, t * x * y - s * z, t * x * z + s * y,
      t * x * y + s * z, t * y * y + c, t * y * z - s * x,
      t * x * z - s * y, t * y * z + s * x, t * z * z + c];
  }
  function euler321(phi, theta, psi) {   // Rz(psi) Ry(theta) Rx(phi)
    const cx = Math.cos(phi), sx = Math.sin(phi), cy = Math.cos(theta), sy = Math.sin(theta), cz = Math.cos(psi), sz = Math.sin(psi);
    return [cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
      sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
      -sy, cy * sx, cy * cx];
  }
  function setPose(obj, R, p) {
    obj.matrix.set(R[0], R[1], R[2], p[0], R[3], R[4], R[5], p[1], R[6], R[7], R[8], p[2], 0, 0, 0, 1);
    obj.matrixWorldNeedsUpdate = true;
  }
  function material(rgba) {
    const m = new THREE.MeshLambertMaterial({ color: new THREE.Color(rgba[0], rgba[1], rgba[2]), side: THREE.DoubleSide });
    if (rgba.length > 3 && rgba[3] < 1) { m.transparent = true; m.opacity = rgba[3]; }
    return m;
  }
  function indexedGeometry(vertices, faces) {
    const g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.Float32BufferAttribute(vertices, 3));
    g.setIndex(faces);
    g.computeVertexNormals();
    return g;
  }

  // ---------------------------------------------------------------- multibody trees (robot, trajectory)
  // Forward kinematics of the tree, the joint kinds of satdyn.multibody.joints.joint_placement.
  function forwardKinematics(bodies, q, mimics, root) {
    (mimics || []).forEach(function (m) { q[m.index] = m.multiplier * q[m.master] + m.offset; });
    const Rw = [], pw = [];
    for (let i = 0; i < bodies.length; i++) {
      const j = bodies[i].joint, k = j.q;
      let R = j.R0, p = j.p0;
      if (i === 0 && root) { R = root.R; p = root.p; }        // a prescribed root's pose at this time
      if (j.kind === "revolute") R = mul3(j.R0, axisAngle(j.axis, q[k]));
      else if (j.kind === "prismatic") { const d = apply3(j.R0, j.axis); p = [p[0] + q[k] * d[0], p[1] + q[k] * d[1], p[2] + q[k] * d[2]]; }
      else if (j.kind === "spherical") R = mul3(j.R0, quatMatrix(q[k], q[k + 1], q[k + 2], q[k + 3]));
      else if (j.kind === "floating") { R = quatMatrix(q[k + 3], q[k + 4], q[k + 5], q[k + 6]); p = [q[k], q[k + 1], q[k + 2]]; }
      else if (j.kind === "floating_euler") { R = euler321(q[k + 3], q[k + 4], q[k + 5]); p = [q[k], q[k + 1], q[k + 2]]; }
      const parent = bodies[i].parent;
      if (parent < 0) { Rw.push(R); pw.push(p); }
      else {
        Rw.push(mul3(Rw[parent], R));
        const d = apply3(Rw[parent], p), o = pw[parent];
        pw.push([o[0] + d[0], o[1] + d[1], o[2] + d[2]]);
      }
    }
    return { R: Rw, p: pw };
  }
  function visualObject(v, meshes) {
    let g;
    if (v.type === "box") g = new THREE.BoxGeometry(v.size[0], v.size[1], v.size[2]);
    else if (v.type === "sphere") g = new THREE.SphereGeometry(v.radius, 24, 16);
    else if (v.type === "cylinder") { g = new THREE.CylinderGeometry(v.radius, v.radius, v.length, 24); g.rotateX(Math.PI / 2); }
    else if (v.type === "mesh") {
      const m = meshes[v.mesh];
      if (!m.geometry) m.geometry = indexedGeometry(m.vertices, m.faces);
      g = m.geometry;
    } else return null;
    const obj = new THREE.Mesh(g, material(v.color));
    obj.matrixAutoUpdate = false;
    const R = v.R, p = v.p, s = v.scale || [1, 1, 1];
    obj.matrix.set(R[0] * s[0], R[1] * s[1], R[2] * s[2], p[0], R[3] * s[0], R[4] * s[1], R[5] * s[2], p[1],
      R[6] * s[0], R[7] * s[1], R[8] * s[2], p[2], 0, 0, 0, 1);
    return obj;
  }
  function buildTree(tree) {
    const frames = tree.bodies.map(function (b) {
      const f = new THREE.Group();
      f.matrixAutoUpdate = false;
      b.visuals.forEach(function (v) { const o = visualObject(v, tree.meshes); if (o) f.add(o); });
      scene.add(f);
      return f;
    });
    return {
      pose: function (q, root) {
        const fk = forwardKinematics(tree.bodies, q, tree.mimics, root);
        frames.forEach(function (f, i) { setPose(f, fk.R[i], fk.p[i]); });
        return fk;
      },
    };
  }
  function treeState(fk) {
    return { positions: fk.p, rotations: fk.R };
  }

  // ---------------------------------------------------------------- the views
  const state = { kind: DATA.kind, frames: 0 };
  let update = function () {};
  // the title folds the panel away (click it) so that it covers nothing of the scene
  const heading = el("h1", { text: DATA.title, title: "click to fold or unfold the panel" });
  heading.style.cursor = "pointer";
  heading.addEventListener("click", function () {
    const folded = panel.classList.toggle("folded");
    Array.prototype.forEach.call(panel.children, function (c) { if (c !== heading) c.style.display = folded ? "none" : ""; });
  });

  if (DATA.kind === "modes") {
    const M = DATA.modes;
    const n = M.nodes.length / 3;
    const positions = new Float32Array(M.nodes);
    const colors = new Float32Array(3 * n);
    const geom = new THREE.BufferGeometry();
    geom.setAttribute("position", new THREE.BufferAttribute(positions, 3));
    geom.setAttribute("color", new THREE.BufferAttribute(colors, 3));
    geom.setIndex(M.triangles);
    const surface = new THREE.Mesh(geom, new THREE.MeshLambertMaterial({ vertexColors: true, side: THREE.DoubleSide }));
    scene.add(surface);
    const ghostGeom = new THREE.BufferGeometry();
    ghostGeom.setAttribute("position", new THREE.Float32BufferAttribute(M.nodes, 3));
    ghostGeom.setIndex(M.edges);
    const ghost = new THREE.LineSegments(ghostGeom, new THREE.LineBasicMaterial({ color: 0x8c8c8c, transparent: true, opacity: 0.45 }));
    scene.add(ghost);
    let mode = Math.max(0, Math.min(M.modes.length - 1, Math.round(hashNumber("mode", 1)) - 1));
    let amplitude = hashNumber("amp", M.amplitude);
    const fixedTime = HASH.has("t") ? hashNumber("t", 0) : null;
    const select = el("select");
    M.modes.forEach(function (m, i) { el("option", { value: i, text: m.label }, select); });
    select.value = mode;
    const info = el("div", { class: "info" });
    function showInfo() {
      const m = M.modes[mode];
      info.textContent = "f = " + fmt(m.hz, 4) + " Hz,  \u03c9 = " + fmt(m.omega, 4) + " rad/s" + (m.type ? "  (" + m.type + ")" : "");
      const s = m.shape;
      for (let i = 0; i < n; i++) {
        const c = viridis(Math.hypot(s[3 * i], s[3 * i + 1], s[3 * i + 2]));
        colors[3 * i] = c[0]; colors[3 * i + 1] = c[1]; colors[3 * i + 2] = c[2];
      }
      geom.attributes.color.needsUpdate = true;
    }
    select.addEventListener("change", function () { mode = Number(select.value); showInfo(); });
    showInfo();
    slider("amplitude [m]", 0, 4 * M.amplitude, M.amplitude / 50, amplitude, function (v) { amplitude = v; });
    const ghostBox = el("label", { text: " undeformed" });
    const ghostCheck = document.createElement("input"); ghostCheck.type = "checkbox"; ghostCheck.checked = HASH.get("ghost") !== "0";
    ghostBox.insertBefore(ghostCheck, ghostBox.firstChild);
    ghost.visible = ghostCheck.checked;
    ghostCheck.addEventListener("change", function () { ghost.visible = ghostCheck.checked; });
    el("div", { class: "note", text: "largest displacement drawn = amplitude; colour: |shape|; one cycle = " + fmt(M.period, 2) + " s (display only)" });
    const start = performance.now();
    update = function () {
      const t = fixedTime !== null ? fixedTime : (performance.now() - start) / 1000;
      const phase = Math.sin(2 * Math.PI * t / M.period);
      const s = M.modes[mode].shape, x0 = M.nodes, a = amplitude * phase;
      for (let i = 0; i < 3 * n; i++) positions[i] = x0[i] + a * s[i];
      geom.attributes.position.needsUpdate = true;
      geom.computeVertexNormals();
      geom.computeBoundingSphere();
      state.mode = mode + 1; state.t = t; state.phase = phase; state.amplitude = amplitude;
    };
  } else if (DATA.kind === "robot") {
    const T = DATA.tree;
    const tree = buildTree(T);
    const q = T.q0.slice();
    const given = {};
    (HASH.get("joint") || "").split(",").forEach(function (kv) {
      const i = kv.lastIndexOf(":");
      if (i > 0 && isFinite(Number(kv.slice(i + 1)))) given[decodeURIComponent(kv.slice(0, i))] = Number(kv.slice(i + 1));
    });
    T.sliders.forEach(function (s) {
      if (s.name in given) q[s.index] = given[s.name];
      slider(s.name + (s.unit ? " [" + s.unit + "]" : ""), s.min, s.max, (s.max - s.min) / 500, q[s.index],
        function (v) { q[s.index] = v; });
    });
    if (!T.sliders.length) el("div", { class: "info", text: "no 1-DOF joint to move" });
    update = function () { Object.assign(state, treeState(tree.pose(q))); state.q = q; };
  } else if (DATA.kind === "trajectory") {
    const T = DATA.tree, times = DATA.times, nq = T.q0.length, frames = times.length;
    const tree = buildTree(T);
    const t0 = times[0], t1 = times[frames - 1];
    let t = Math.max(t0, Math.min(t1, hashNumber("t", t0)));
    let playing = !HASH.has("t") && HASH.get("play") !== "0";
    let speed = 1;
    if (DATA.trail && DATA.trail.length >= 6) {
      const g = new THREE.BufferGeometry();
      g.setAttribute("position", new THREE.Float32BufferAttribute(DATA.trail, 3));
      scene.add(new THREE.Line(g, new THREE.LineBasicMaterial({ color: 0xd0602a })));
    }
    const timeSlider = slider("time [s]", t0, t1, (t1 - t0) / 1000 || 1, t, function (v) { t = v; playing = false; button.textContent = "play"; });
    const button = el("button", { text: playing ? "pause" : "play" });
    button.addEventListener("click", function () {
      playing = !playing; button.textContent = playing ? "pause" : "play";
      if (playing && t >= t1) t = t0;
    });
    const speedSel = el("select");
    [0.1, 0.25, 0.5, 1, 2, 5, 10].forEach(function (s) { el("option", { value: s, text: s + "x" }, speedSel); });
    speedSel.value = 1;
    speedSel.addEventListener("change", function () { speed = Number(speedSel.value); });
    function bracket(time) {
      let lo = 0, hi = frames - 1;
      while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (times[mid] <= time) lo = mid; else hi = mid; }
      const span = times[hi] - times[lo], f = span > 0 ? Math.max(0, Math.min(1, (time - times[lo]) / span)) : 0;
      return { lo: lo, hi: hi, f: f };
    }
    function qAt(b) {               // linear in q, quaternions renormalised by the kinematics
      const q = new Array(nq);
      for (let i = 0; i < nq; i++) q[i] = (1 - b.f) * DATA.q[b.lo * nq + i] + b.f * DATA.q[b.hi * nq + i];
      return q;
    }
    function rootAt(b) {            // prescribed root: linear in position and matrix, columns re-orthonormalised
      if (!DATA.root || !DATA.root.length) return null;
      const a = DATA.root.slice(12 * b.lo, 12 * b.lo + 12), c = DATA.root.slice(12 * b.hi, 12 * b.hi + 12);
      const m = a.map(function (x, i) { return (1 - b.f) * x + b.f * c[i]; });
      const col = function (j) { return [m[j], m[3 + j], m[6 + j]]; };
      const unit = function (v) { const n = Math.hypot(v[0], v[1], v[2]) || 1; return [v[0] / n, v[1] / n, v[2] / n]; };
      const x = unit(col(0)), y0 = col(1), d = x[0] * y0[0] + x[1] * y0[1] + x[2] * y0[2];
      const y = unit([y0[0] - d * x[0], y0[1] - d * x[1], y0[2] - d * x[2]]);
      const z = [x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]];
      return { R: [x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]], p: [m[9], m[10], m[11]] };
    }
    let last = performance.now();
    update = function () {
      const now = performance.now();
      if (playing) {
        t += speed * (now - last) / 1000;
        if (t > t1) t = t0 + (t - t1) % Math.max(t1 - t0, 1e-9);
        timeSlider.set(t);
      }
      last = now;
      const b = bracket(t);
      Object.assign(state, treeState(tree.pose(qAt(b), rootAt(b))));
      state.t = t;
    };
  } else if (DATA.kind === "assembly") {
    const A = DATA.assembly, S = A.placed.length, L = A.n_legs, side = A.tile_side;
    const tiles = [];
    const tileGeom = new THREE.BoxGeometry(0.96 * side, 0.96 * side, 0.03 * side);
    const tileMat = material([0.36, 0.55, 0.80]), newMat = material([0.95, 0.55, 0.15]);
    for (let i = 0; i < A.tiles.length / 2; i++) {
      const m = new THREE.Mesh(tileGeom, tileMat);
      m.position.set(A.tiles[2 * i], A.tiles[2 * i + 1], 0);
      scene.add(m); tiles.push(m);
    }
    if (A.stack) {
      const stack = new THREE.Mesh(new THREE.BoxGeometry(0.9 * side, 0.9 * side, 0.25 * side), material([0.55, 0.55, 0.6]));
      stack.position.set(A.stack[0], A.stack[1], 0.125 * side);
      scene.add(stack);
    }
    const legMat = material([0.85, 0.18, 0.2]);
    const legs = [];
    for (let k = 0; k < L; k++) { const m = new THREE.Mesh(new THREE.SphereGeometry(0.09 * side, 20, 14), legMat); scene.add(m); legs.push(m); }
    const hub = new THREE.Mesh(new THREE.SphereGeometry(0.14 * side, 20, 14), legMat); scene.add(hub);
    const bodyLineGeom = new THREE.BufferGeometry();
    bodyLineGeom.setAttribute("position", new THREE.BufferAttribute(new Float32Array(6 * L), 3));
    scene.add(new THREE.LineSegments(bodyLineGeom, new THREE.LineBasicMaterial({ color: 0x8a1a1a })));
    const lift = 0.35 * side;
    function centre(s) {
      const c = [0, 0, 0];
      for (let k = 0; k < L; k++) for (let d = 0; d < 3; d++) c[d] += A.legs[(s * L + k) * 3 + d] / L;
      c[2] += lift;
      return c;
    }
    // colour range over the moves (step 0 is the start, with no move and no cost)
    const finite = (S > 1 ? A.costs.slice(1) : A.costs).filter(function (c) { return isFinite(c); });
    const cmin = finite.length ? Math.min.apply(null, finite) : 0, cmax = finite.length ? Math.max.apply(null, finite) : 1;
    const segments = [];
    for (let s = 1; s < S; s++) {       // segment s: robot centre at step s-1 -> s, coloured by the cost of step s
      const a = new THREE.Vector3().fromArray(centre(s - 1)), b = new THREE.Vector3().fromArray(centre(s));
      const len = a.distanceTo(b);
      const c = viridis((A.costs[s] - cmin) / ((cmax - cmin) || 1));
      let m;
      if (len > 1e-9) {
        m = new THREE.Mesh(new THREE.CylinderGeometry(0.04 * side, 0.04 * side, len, 10), material(c));
        m.position.copy(a).add(b).multiplyScalar(0.5);
        m.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), b.clone().sub(a).normalize());
      } else {
        m = new THREE.Mesh(new THREE.SphereGeometry(0.06 * side, 12, 8), material(c));
        m.position.copy(a);
      }
      scene.add(m); segments.push(m);
    }
    let step = Math.max(0, Math.min(S - 1, Math.round(hashNumber("step", S - 1))));
    const info = el("div", { class: "info" });
    slider("step", 0, S - 1, 1, step, function (v) { step = v; });
    colorbar(cmin, cmax, "path coloured by " + A.cost_label);
    update = function () {
      const n = A.placed[step];
      tiles.forEach(function (m, i) { m.visible = i < n; m.material = (i === n - 1 && (step === 0 || A.placed[step - 1] < n)) ? newMat : tileMat; });
      segments.forEach(function (m, i) { m.visible = i < step; });
      const pos = bodyLineGeom.attributes.position.array, c = centre(step);
      for (let k = 0; k < L; k++) {
        const p = [A.legs[(step * L + k) * 3], A.legs[(step * L + k) * 3 + 1], A.legs[(step * L + k) * 3 + 2]];
        legs[k].position.fromArray(p);
        pos.set(p, 6 * k); pos.set(c, 6 * k + 3);
      }
      bodyLineGeom.attributes.position.needsUpdate = true;
      hub.position.fromArray(c);
      info.textContent = "step " + step + " / " + (S - 1) + (A.step_labels.length ? " (" + A.step_labels[step] + ")" : "") +
        ": " + n + " tiles, " + A.cost_label + " = " + fmt(A.costs[step], 4) + ", cumulative " + fmt(A.cumulative[step], 4);
      state.step = step; state.tiles = n;
    };
  }

  function frame() {
    fitViewport();
    state.viewport = viewport;
    update();
    renderer.render(scene, camera);
    state.frames += 1;
    stateEl.textContent = JSON.stringify(state);
    window.requestAnimationFrame(frame);
  }
  frame();
})();
