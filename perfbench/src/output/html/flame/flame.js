(function () {
  /* The flame graph of the section this script closes (flame/mod.rs): a
     frame is a nested svg of class "f" with its place in samples (data-s, its
     first; data-n, how many; data-d, its depth). Hover writes its <title>
     into the section's hover line; a click zooms into it: its samples take
     the whole width, the frames above it too, the others are hidden; the
     button shows all again. Names are read from the DOM as text only. */
  var section = document.currentScript.parentNode;
  var graph = section.querySelector("svg.flame-graph");
  var line = section.querySelector(".flame-hover");
  var reset = section.querySelector(".flame-reset");
  if (!graph || !line || !reset) { return; }
  var frames = graph.querySelectorAll("svg.f");
  var total = Number(graph.getAttribute("data-total"));
  var place = function (f) {
    return {
      s: Number(f.getAttribute("data-s")),
      n: Number(f.getAttribute("data-n")),
      d: Number(f.getAttribute("data-d"))
    };
  };
  var percent = function (x) { return (x * 100).toFixed(4) + "%"; };
  var zoom = function (s, n, d) {
    Array.prototype.forEach.call(frames, function (f) {
      var p = place(f);
      if (p.d < d && p.s <= s && p.s + p.n >= s + n) {
        f.setAttribute("x", "0%");
        f.setAttribute("width", "100%");
        f.style.display = "";
      } else if (p.d >= d && p.s >= s && p.s + p.n <= s + n) {
        f.setAttribute("x", percent((p.s - s) / n));
        f.setAttribute("width", percent(p.n / n));
        f.style.display = "";
      } else {
        f.style.display = "none";
      }
    });
  };
  var frameOf = function (target) {
    var f = target && target.closest ? target.closest("svg.f") : null;
    return f && graph.contains(f) ? f : null;
  };
  graph.addEventListener("mouseover", function (ev) {
    var f = frameOf(ev.target);
    var title = f ? f.querySelector("title") : null;
    if (title) { line.textContent = title.textContent.replace("\n", " — "); }
  });
  graph.addEventListener("click", function (ev) {
    var f = frameOf(ev.target);
    if (!f) { return; }
    var p = place(f);
    if (p.n > 0) { zoom(p.s, p.n, p.d); }
  });
  reset.addEventListener("click", function () { zoom(0, total, -1); });
})();
