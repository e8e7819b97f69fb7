// The Graph page: draws the JSON embedded in #graph-data with cytoscape.
// Data: {nodes: [{id, title, summary_short, hops, kind, type, pack, color, href}],
//        edges: [{source, target, type, explanation}], center, overview,
//        colors: {relation type: colour}, node_colors: {entity type: colour}, symmetric: [types],
//        communities}.
// With `communities` (a graph past the server's budget), each node is a community of related
// nodes: `size` is its number of nodes, an edge's `weight` the relations between two of them,
// and a click opens the community (its href).
// Nodes are concepts and pack entities, coloured by entity type; a click opens node.href; a
// hovered node shows its whole name on the canvas and as the canvas's tooltip.
// Text from the graph is only ever set with textContent or as cytoscape labels (canvas).
(function () {
  "use strict";

  var holder = document.getElementById("graph");
  var script = document.getElementById("graph-data");
  if (!holder || !script || typeof window.cytoscape !== "function") return;
  var data = JSON.parse(script.textContent);
  var symmetric = new Set(data.symmetric || []);
  var colors = data.colors || {};
  var big = data.nodes.length > 300;
  var huge = data.nodes.length > 1000;
  var communities = !!data.communities;
  var largest = 1;
  var heaviest = 1;
  data.nodes.forEach(function (n) { largest = Math.max(largest, n.size || 1); });
  data.edges.forEach(function (e) { heaviest = Math.max(heaviest, e.weight || 1); });

  var elements = [];
  data.nodes.forEach(function (n) {
    elements.push({
      group: "nodes",
      data: {
        id: n.id,
        title: n.title,
        summary: n.summary_short || "",
        hops: n.hops,
        type: n.type || "",
        pack: n.pack || "",
        color: n.color || "#94a3b8",
        href: n.href || "/concepts/" + encodeURIComponent(n.id),
        size: n.size || 1,
        label: communities ? n.title + " (" + n.size + ")" : n.title,
      },
      classes: communities ? "community" : n.hops === 0 && !data.overview ? "center" : "",
    });
  });
  data.edges.forEach(function (e, i) {
    elements.push({
      group: "edges",
      data: {
        id: "e" + i,
        source: e.source,
        target: e.target,
        type: e.type,
        explanation: e.explanation || "",
        color: colors[e.type] || "#94a3b8",
        weight: e.weight || 1,
      },
      classes: communities || symmetric.has(e.type) ? "symmetric" : "directed",
    });
  });

  // Big graphs: concentric rings in breadth-first order (the data's order: the centre, then
  // each hop), ring k holding about 6k nodes, positions computed here in one pass; smaller
  // ones: the force-directed cose layout, run without animation.
  function ringPositions(nodes, spacing) {
    var ordered = nodes.slice().sort(function (a, b) { return a.hops - b.hops; });
    var positions = {};
    var ring = 0;
    var i = 0;
    while (i < ordered.length) {
      var members = ordered.slice(i, i + (ring === 0 ? 1 : 6 * ring));
      members.forEach(function (n, j) {
        var angle = (2 * Math.PI * j) / members.length + ring * 0.37;
        positions[n.id] = { x: ring * spacing * Math.cos(angle), y: ring * spacing * Math.sin(angle) };
      });
      i += members.length;
      ring += 1;
    }
    return positions;
  }

  // The whole graph, when big: each connected cluster drawn as its own rings (its most related
  // node in the middle), the clusters side by side in rows, the largest first.
  function clusterPositions(nodes, edges) {
    var parent = {};
    var degree = {};
    nodes.forEach(function (n) { parent[n.id] = n.id; degree[n.id] = 0; });
    function root(id) {
      while (parent[id] !== id) { parent[id] = parent[parent[id]]; id = parent[id]; }
      return id;
    }
    edges.forEach(function (e) {
      if (!(e.source in parent) || !(e.target in parent)) return;
      degree[e.source] += 1;
      degree[e.target] += 1;
      parent[root(e.source)] = root(e.target);
    });
    var groups = {};
    nodes.forEach(function (n) { (groups[root(n.id)] = groups[root(n.id)] || []).push(n); });
    var clusters = Object.keys(groups).map(function (k) {
      return groups[k].sort(function (a, b) { return degree[b.id] - degree[a.id]; });
    }).sort(function (a, b) { return b.length - a.length; });
    var positions = {};
    var rowWidth = Math.sqrt(nodes.length) * 60;
    var x = 0, y = 0, rowHeight = 0;
    clusters.forEach(function (members) {
      var local = ringPositions(members, 36);
      var radius = 0;
      members.forEach(function (n) {
        radius = Math.max(radius, Math.abs(local[n.id].x), Math.abs(local[n.id].y));
      });
      var size = 2 * radius + 60;
      if (x > 0 && x + size > rowWidth) { x = 0; y += rowHeight; rowHeight = 0; }
      members.forEach(function (n) {
        positions[n.id] = { x: x + size / 2 + local[n.id].x, y: y + size / 2 + local[n.id].y };
      });
      x += size;
      rowHeight = Math.max(rowHeight, size);
    });
    return positions;
  }

  var layout;
  if (communities) {
    // Communities, largest first (the server's order), in rings from the middle: placed in
    // one pass, where a force layout of a few hundred circles would hold up the first paint.
    var placed = ringPositions(data.nodes, 90);
    layout = {
      name: "preset",
      fit: true,
      padding: 30,
      positions: function (node) { return placed[node.id()]; },
    };
  } else if (big) {
    var positions = data.overview ? clusterPositions(data.nodes, data.edges) : ringPositions(data.nodes, 36);
    layout = {
      name: "preset",
      fit: true,
      padding: 20,
      positions: function (node) { return positions[node.id()]; },
    };
  } else if (data.nodes.length <= 12) {
    // A handful of concepts: the centre in the middle, the others around it by distance,
    // which reads better than a force layout when nearly every pair is related.
    layout = {
      name: "concentric",
      fit: true,
      padding: 40,
      minNodeSpacing: 70,
      nodeDimensionsIncludeLabels: true,
      concentric: function (node) { return 10 - (node.data("hops") || 0); },
      levelWidth: function () { return 1; },
    };
  } else {
    layout = {
      name: "cose",
      animate: false,
      randomize: false,
      fit: true,
      padding: 30,
      nodeDimensionsIncludeLabels: true,
      idealEdgeLength: function () { return 110; },
      nodeRepulsion: function () { return 9000; },
      numIter: 1500,
    };
  }

  var cy = window.cytoscape({
    container: holder,
    elements: elements,
    layout: layout,
    minZoom: 0.05,
    maxZoom: 3,
    textureOnViewport: huge,
    hideEdgesOnViewport: big,
    pixelRatio: huge ? 1 : "auto",
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(color)",
          "border-width": 1,
          "border-color": "#ffffff",
          width: 18,
          height: 18,
          label: "data(label)",
          "font-family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
          "font-size": 11,
          color: "#1f2937",
          "text-valign": "bottom",
          "text-margin-y": 4,
          "text-wrap": "ellipsis",
          "text-max-width": 140,
          "text-background-color": "#ffffff",
          "text-background-opacity": 0.75,
          "text-background-padding": 1,
          "min-zoomed-font-size": big ? 9 : 6,
        },
      },
      {
        selector: "node.center",
        style: {
          "border-color": "#92400e",
          "border-width": 4,
          width: 28,
          height: 28,
          "font-weight": "bold",
          "font-size": 13,
          "z-index": 10,
        },
      },
      {
        selector: "edge",
        style: {
          width: 1.6,
          "line-color": "data(color)",
          "target-arrow-color": "data(color)",
          "curve-style": huge || communities ? "straight" : "bezier",
          opacity: 0.85,
          "font-size": 9,
          color: "#374151",
          "text-rotation": "autorotate",
          "text-background-color": "#ffffff",
          "text-background-opacity": 0.85,
          "text-background-padding": 1,
          "min-zoomed-font-size": 7,
        },
      },
      {
        selector: "node.community",
        style: {
          width: "mapData(size, 1, " + largest + ", 22, 80)",
          height: "mapData(size, 1, " + largest + ", 22, 80)",
          "font-size": 12,
          "min-zoomed-font-size": 0,
        },
      },
      {
        selector: "edge[weight > 1]",
        style: { width: "mapData(weight, 1, " + heaviest + ", 1.6, 9)" },
      },
      { selector: "edge.directed", style: { "target-arrow-shape": "triangle", "arrow-scale": 0.9 } },
      { selector: "edge.symmetric", style: { "target-arrow-shape": "none", "line-style": "solid" } },
      { selector: "edge.labelled, edge.hover", style: { label: "data(type)" } },
      { selector: "edge.hover", style: { width: 3, opacity: 1, "z-index": 20 } },
      // Hovered, a node shows its whole name, however long or far zoomed out.
      {
        selector: "node.hover",
        style: {
          "border-color": "#111827",
          "border-width": 2,
          "text-wrap": "wrap",
          "text-max-width": 260,
          "min-zoomed-font-size": 0,
          "z-index": 30,
        },
      },
      { selector: ".faded", style: { opacity: 0.2 } },
    ],
  });

  if (data.edges.length <= 30 && !communities) cy.edges().addClass("labelled");

  var info = document.getElementById("graph-info");
  function show(title, lines) {
    if (!info) return;
    info.replaceChildren();
    var h = document.createElement("h2");
    h.textContent = title;
    info.appendChild(h);
    lines.forEach(function (line) {
      if (!line) return;
      var p = document.createElement("p");
      p.textContent = line;
      info.appendChild(p);
    });
  }

  cy.on("mouseover", "node", function (event) {
    var node = event.target;
    node.addClass("hover");
    holder.title = node.data("title");
    if (!big) {
      cy.elements().not(node.closedNeighborhood()).addClass("faded");
      node.connectedEdges().addClass("hover");
    }
    var degree = node.degree(false);
    var kind = communities
      ? "Community of " + node.data("size") + " nodes"
      : node.data("type") + (node.data("pack") ? " · " + node.data("pack") : "");
    show(node.data("title"), [
      kind,
      node.data("summary"),
      communities
        ? "related to " + degree + " other communit" + (degree === 1 ? "y" : "ies") + " · click to open"
        : degree + " relation" + (degree === 1 ? "" : "s") + " shown · click to open",
    ]);
  });
  cy.on("mouseout", "node", function (event) {
    event.target.removeClass("hover");
    holder.title = "";
    cy.elements().removeClass("faded");
    cy.edges().removeClass("hover");
  });
  cy.on("mouseover", "edge", function (event) {
    var edge = event.target;
    edge.addClass("hover");
    var arrow = symmetric.has(edge.data("type")) ? " ↔ " : " → ";
    show(edge.data("type"), [
      edge.source().data("title") + arrow + edge.target().data("title"),
      edge.data("explanation"),
    ]);
  });
  cy.on("mouseout", "edge", function (event) {
    event.target.removeClass("hover");
  });
  cy.on("tap", "node", function (event) {
    window.location.href = event.target.data("href");
  });
  // Fitting two or three concepts to the canvas would blow them up to giant labels.
  function notTooClose() {
    if (cy.zoom() > 1.2) {
      cy.zoom(1.2);
      cy.center();
    }
  }
  notTooClose();
  cy.one("layoutstop", notTooClose);
  // When the graph was first painted, in ms from the start of the navigation (the browser's
  // own clock): what benchmarks/web.py reports as the time to first paint.
  cy.one("render", function () {
    holder.dataset.paintedMs = String(Math.round(performance.now()));
  });
  // For the browser test and for anyone poking at the graph from the console.
  window.zgGraph = cy;
  holder.classList.add("ready");
})();
