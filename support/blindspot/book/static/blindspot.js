// The Blind Spot Book: the ledger page's filter by status (see blindspot/book/ledger_page.py).
// Each check box shows or hides the claims of its status; a chapter or part with no claim left shown
// hides too. Works offline (no library).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".bs-ledger").forEach((ledger) => {
    const boxes = Array.from(ledger.querySelectorAll(".bs-filter input[data-status]"));
    const apply = () => {
      const shown = new Set(boxes.filter((b) => b.checked).map((b) => b.dataset.status));
      ledger.querySelectorAll("tr[data-status]").forEach((row) => {
        row.hidden = !shown.has(row.dataset.status);
      });
      ledger.querySelectorAll("details.bs-chapter, details.bs-part").forEach((box) => {
        box.hidden = !box.querySelector("tr[data-status]:not([hidden])");
      });
    };
    boxes.forEach((b) => b.addEventListener("change", apply));
    apply();
  });
});
