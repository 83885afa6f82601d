// On a phone the seats' panels and the turns are folded under the prompt, so the board and
// the decision fit on one screen (style.css's phone rules hide them): a tap on their
// button opens one, another tap folds it again. On a wider screen the buttons are not shown.

const FOLDS = { "players-toggle": "players-open", "log-toggle": "log-open" };

export function listenToFolds() {
  for (const [id, open] of Object.entries(FOLDS)) {
    const button = document.getElementById(id);
    button.addEventListener("click", () => {
      const opened = document.body.classList.toggle(open);
      button.setAttribute("aria-expanded", String(opened));
    });
  }
}
