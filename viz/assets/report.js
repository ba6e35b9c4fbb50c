// heapq report: the dominator icicle (click to zoom, hover for details) and sortable tables.
// Data comes from the JSON block #heapq-data and reaches the page as text only: textContent,
// never innerHTML.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("heapq-data").textContent);
  var ROW = 22;

  // --- the icicle ------------------------------------------------------------------------
  var nodes = data.icicle.map(function (r, i) {
    return { index: i, parent: r[0], name: r[1], address: r[2], site: r[3], edge: r[4], bytes: r[5], count: r[6], more: r[7] === 1, children: [] };
  });
  nodes.forEach(function (n) { if (n.parent >= 0) nodes[n.parent].children.push(n); });

  var icicle = document.getElementById("icicle");
  var crumbs = document.getElementById("crumbs");
  var tip = document.getElementById("tip");

  function formatBytes(n) {
    var units = ["B", "KiB", "MiB", "GiB", "TiB"];
    var i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i === 0 ? String(n) : n.toFixed(1)) + " " + units[i];
  }
  function formatCount(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

  function hue(name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    return h % 360;
  }

  function ancestors(n) {
    var out = [];
    for (var v = n; v; v = v.parent >= 0 ? nodes[v.parent] : null) out.unshift(v);
    return out;
  }

  function pathText(n) {
    return ancestors(n).map(function (v) { return (v.edge ? v.edge + " \u2192 " : "") + v.name; }).join("  \u203A  ");
  }

  function showTip(n, event) {
    tip.textContent = "";
    var b = document.createElement("b");
    b.textContent = n.name;
    tip.appendChild(b);
    var lines = [
      (n.address ? n.address + ", " : "") + "retains " + formatBytes(n.bytes) + " in " +
        formatCount(n.count) + (n.count === 1 ? " object" : " objects"),
      n.site ? "allocated at " + n.site : "",
      "path: " + pathText(n)
    ];
    lines.forEach(function (line) {
      if (!line) return;
      var div = document.createElement("div");
      div.textContent = line;
      tip.appendChild(div);
    });
    tip.hidden = false;
    moveTip(event);
  }
  function moveTip(event) {
    var x = Math.min(event.clientX + 12, window.innerWidth - tip.offsetWidth - 8);
    tip.style.left = Math.max(0, x) + "px";
    tip.style.top = (event.clientY + 14) + "px";
  }

  function zoom(n) {
    icicle.dataset.zoom = String(n.index);
    icicle.textContent = "";
    var width = icicle.clientWidth || 1000;
    var depth = 0;
    // Breadth-first over the visible part: each child takes its share of its parent's width.
    var queue = [{ node: n, x: 0, w: width, d: 0 }];
    while (queue.length) {
      var item = queue.shift();
      var v = item.node;
      depth = Math.max(depth, item.d);
      var cell = document.createElement("div");
      cell.className = "cell" + (v === n ? " zoom" : "") + (v.more ? " more" : "");
      cell.style.left = item.x + "px";
      cell.style.width = item.w + "px";
      cell.style.top = item.d * ROW + "px";
      if (v !== n && !v.more) cell.style.background = "hsl(" + hue(v.name) + ",55%,80%)";
      cell.textContent = v.name + " " + formatBytes(v.bytes);
      cell.dataset.index = String(v.index);
      cell.setAttribute("role", "treeitem");
      icicle.appendChild(cell);
      var x = item.x;
      v.children.forEach(function (c) {
        var w = v.bytes > 0 ? item.w * (c.bytes / v.bytes) : 0;
        if (w >= 2) queue.push({ node: c, x: x, w: w, d: item.d + 1 });
        x += w;
      });
    }
    icicle.style.height = (depth + 1) * ROW + 2 + "px";
    crumbs.textContent = "";
    ancestors(n).forEach(function (v, i) {
      if (i) crumbs.appendChild(document.createTextNode(" \u203A "));
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = v.name;
      button.addEventListener("click", function () { zoom(v); });
      crumbs.appendChild(button);
    });
  }

  icicle.addEventListener("click", function (event) {
    var cell = event.target.closest(".cell");
    if (!cell) return;
    var v = nodes[Number(cell.dataset.index)];
    var current = Number(icicle.dataset.zoom);
    if (v.index === current) {
      if (v.parent >= 0) zoom(nodes[v.parent]);
    } else if (v.children.length) {
      zoom(v);
    }
  });
  icicle.addEventListener("mousemove", function (event) {
    var cell = event.target.closest(".cell");
    if (!cell) { tip.hidden = true; return; }
    showTip(nodes[Number(cell.dataset.index)], event);
  });
  icicle.addEventListener("mouseleave", function () { tip.hidden = true; });
  window.addEventListener("resize", function () { zoom(nodes[Number(icicle.dataset.zoom)]); });
  if (nodes.length) zoom(nodes[0]);

  // --- sortable tables --------------------------------------------------------------------
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var headers = table.querySelectorAll("th");
    headers.forEach(function (th, column) {
      function sort() {
        var descending = th.getAttribute("aria-sort") !== "descending";
        headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var numeric = th.classList.contains("num");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[column], y = b.cells[column];
          var order = numeric ? Number(x.dataset.sort) - Number(y.dataset.sort) : x.textContent.localeCompare(y.textContent);
          return descending ? -order : order;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });
})();
