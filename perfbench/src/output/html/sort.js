(function () {
  /* Text in natural order, the twin of text.rs's natural_cmp: runs of digits
     compared as numbers ("trivial/2" before "trivial/10"), the rest by
     character; texts equal so ("a01", "a1") in their plain order. */
  var naturalCompare = function (a, b) {
    var i = 0, j = 0;
    while (i < a.length && j < b.length) {
      var c = a.charAt(i), d = b.charAt(j);
      if (c >= "0" && c <= "9" && d >= "0" && d <= "9") {
        var m = /^[0-9]+/.exec(a.slice(i))[0], n = /^[0-9]+/.exec(b.slice(j))[0];
        i += m.length; j += n.length;
        m = m.replace(/^0+/, ""); n = n.replace(/^0+/, "");
        if (m.length !== n.length) { return m.length - n.length; }
        if (m !== n) { return m < n ? -1 : 1; }
      } else if (c !== d) {
        return a.codePointAt(i) < b.codePointAt(j) ? -1 : 1;
      } else {
        i += 1; j += 1;
      }
    }
    if (i < a.length || j < b.length) { return i < a.length ? 1 : -1; }
    return a < b ? -1 : a > b ? 1 : 0;
  };
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    /* A header sorts by the column its data-col names: with a metric's name
       spanning its estimate and change, the header rows do not line up with
       the body's cells. */
    var headers = table.tHead.querySelectorAll("th[data-col]");
    Array.prototype.forEach.call(headers, function (th) {
      var col = parseInt(th.getAttribute("data-col"), 10);
      th.tabIndex = 0;
      var sort = function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var key = function (row) {
          var cell = row.cells[col];
          if (!cell) { return ""; }
          /* A benchmark's cell sorts by its id (data-s), not by its badges. */
          var s = cell.getAttribute("data-s");
          if (s !== null) { return s; }
          var v = cell.getAttribute("data-v");
          return v === null ? cell.textContent : parseFloat(v);
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          if (typeof x === "number" && typeof y === "number") { return (x - y) * dir; }
          if (typeof x === "number") { return -1; }
          if (typeof y === "number") { return 1; }
          return naturalCompare(x, y) * dir;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
  });
  var filter = document.getElementById("filter");
  if (filter) {
    filter.addEventListener("input", function () {
      var q = filter.value.toLowerCase();
      var rows = document.querySelectorAll("#summary tbody tr");
      Array.prototype.forEach.call(rows, function (row) {
        row.hidden = q !== "" && row.cells[0].textContent.toLowerCase().indexOf(q) < 0;
      });
    });
  }
})();
