(function () {
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
          var v = cell.getAttribute("data-v");
          return v === null ? cell.textContent : parseFloat(v);
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          if (typeof x === "number" && typeof y === "number") { return (x - y) * dir; }
          if (typeof x === "number") { return -1; }
          if (typeof y === "number") { return 1; }
          return x.localeCompare(y) * dir;
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
