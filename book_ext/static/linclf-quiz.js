/* "Check your understanding" quizzes (book_ext/quiz.py writes the markup).
 *
 * Works offline on the static site: every explanation is already in the page,
 * hidden; answering shows the one that belongs to the answer in the quiz's
 * live region (div.linclf-quiz-feedback, role=status), so screen readers read
 * it out. Choices are native buttons (Enter and Space work); a numeric answer
 * is checked with its button or the Enter key. The last answer to each
 * question is remembered in localStorage when the browser allows it; when it
 * does not (private mode, file:// in some browsers, quota), the quiz still works.
 */
(function () {
  "use strict";

  var STORE_PREFIX = "linclf-quiz:v1:";

  function store() {
    // Merely reading window.localStorage throws when storage is blocked.
    try {
      var s = window.localStorage;
      var probe = STORE_PREFIX + "probe";
      s.setItem(probe, "1");
      s.removeItem(probe);
      return s;
    } catch (e) {
      return null;
    }
  }

  function load(key) {
    var s = store();
    if (!s) return null;
    try {
      return JSON.parse(s.getItem(STORE_PREFIX + key));
    } catch (e) {
      return null;
    }
  }

  function save(key, value) {
    var s = store();
    if (!s) return;
    try {
      s.setItem(STORE_PREFIX + key, JSON.stringify(value));
    } catch (e) {
      /* quota exceeded: progress is a convenience, not a requirement */
    }
  }

  /* A number as a reader types it: "0.25", ",25", "−3" (Unicode minus), "1/4", "2e-3". */
  function parseNumber(raw) {
    var text = String(raw).trim().replace(/\u2212/g, "-").replace(/\s+/g, "");
    if (/^[-+]?\d*,\d+$/.test(text)) text = text.replace(",", ".");
    var frac = /^([-+]?\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(text);
    if (frac) {
      var den = Number(frac[2]);
      return den === 0 ? NaN : Number(frac[1]) / den;
    }
    if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) return NaN;
    return Number(text);
  }

  function close(x, target, tol) {
    return Math.abs(x - target) <= tol + 1e-12 * Math.max(1, Math.abs(target));
  }

  function show(quiz, explain, correct, verdictText) {
    var feedback = quiz.querySelector(".linclf-quiz-feedback");
    var verdict = feedback.querySelector(".linclf-quiz-verdict");
    feedback.querySelectorAll(".linclf-quiz-explain").forEach(function (el) {
      el.hidden = el !== explain;
    });
    verdict.textContent = verdictText;
    feedback.classList.add("is-answered");
    quiz.classList.toggle("is-correct", correct);
    quiz.classList.toggle("is-wrong", !correct);
  }

  function choose(quiz, button, remember) {
    var correct = button.getAttribute("data-correct") === "true";
    quiz.querySelectorAll(".linclf-quiz-option").forEach(function (b) {
      b.setAttribute("aria-pressed", b === button ? "true" : "false");
      b.classList.toggle("is-chosen-correct", b === button && correct);
      b.classList.toggle("is-chosen-wrong", b === button && !correct);
    });
    var index = button.getAttribute("data-option");
    var explain = quiz.querySelector('.linclf-quiz-explain[data-option="' + index + '"]');
    var letter = button.querySelector(".linclf-quiz-letter");
    var label = letter ? letter.textContent + " " : "";
    show(quiz, explain, correct,
         correct ? "Correct: " + label + "is right." : "Not quite: " + label + "is wrong. Try again.");
    if (remember) save(quiz.getAttribute("data-quiz-key"), { option: index });
  }

  function check(quiz, remember) {
    var input = quiz.querySelector(".linclf-quiz-input");
    var raw = input.value;
    var x = parseNumber(raw);
    if (isNaN(x)) {
      show(quiz, null, false, "Please enter a number, such as 0.25, -3 or 1/4.");
      input.setAttribute("aria-invalid", "true");
      return;
    }
    input.removeAttribute("aria-invalid");
    var answer = Number(quiz.getAttribute("data-answer"));
    var tol = Number(quiz.getAttribute("data-tolerance")) || 0;
    var explain, correct = close(x, answer, tol);
    if (correct) {
      explain = quiz.querySelector('.linclf-quiz-explain[data-role="correct"]');
    } else {
      quiz.querySelectorAll('.linclf-quiz-explain[data-role="mistake"]').forEach(function (el) {
        if (!explain && close(x, Number(el.getAttribute("data-value")), tol)) explain = el;
      });
      explain = explain || quiz.querySelector('.linclf-quiz-explain[data-role="other"]');
    }
    show(quiz, explain, correct,
         correct ? "Correct: " + raw.trim() + " is right." : "Not quite: " + raw.trim() + " is wrong. Try again.");
    if (remember) save(quiz.getAttribute("data-quiz-key"), { value: raw.trim() });
  }

  function setup(quiz) {
    var key = quiz.getAttribute("data-quiz-key");
    var saved = load(key);
    if (quiz.classList.contains("linclf-quiz-numeric")) {
      var input = quiz.querySelector(".linclf-quiz-input");
      quiz.querySelector(".linclf-quiz-check").addEventListener("click", function () {
        check(quiz, true);
      });
      input.addEventListener("keydown", function (event) {
        if (event.key === "Enter") {
          event.preventDefault();
          check(quiz, true);
        }
      });
      if (saved && typeof saved.value === "string") {
        input.value = saved.value;
        check(quiz, false);
      }
    } else {
      quiz.querySelectorAll(".linclf-quiz-option").forEach(function (button) {
        button.addEventListener("click", function () {
          choose(quiz, button, true);
        });
        if (saved && saved.option === button.getAttribute("data-option")) choose(quiz, button, false);
      });
    }
  }

  /* MathJax's menu puts every formula in the tab order (tabindex=0). Inside a
   * choice button that is a focus stop within a control (axe: nested-interactive)
   * and doubles the Tab presses; the button itself is the control, and its
   * accessible name already includes the formula's speech text. */
  function untabMathInOptions() {
    document.querySelectorAll(".linclf-quiz-option mjx-container[tabindex]").forEach(function (m) {
      m.removeAttribute("tabindex");
    });
  }

  function whenMathTypeset(callback) {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) {
      mj.startup.promise.then(callback, function () {});
      return true;
    }
    return false;
  }

  function init() {
    document.querySelectorAll(".linclf-quiz").forEach(setup);
    if (!document.querySelector(".linclf-quiz-option")) return;
    // MathJax loads asynchronously; by the load event its startup promise exists
    if (!whenMathTypeset(untabMathInOptions)) {
      window.addEventListener("load", function () {
        whenMathTypeset(untabMathInOptions);
      });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
