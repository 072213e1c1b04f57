// relpos live class: the teacher's roster, one element however many students.
//
// Draws who joined (relpos.ui.class_roster): each student's name, ✓ once they answered the
// current question, "left" (greyed, listed after those here) once their tab closed, and a
// Remove button. Remove asks first, on the row itself ("Remove Mia (2)? Their answers go
// too." Yes, remove / Keep); Yes hands the student's number to Streamlit as the "remove"
// trigger, whose callback takes the seat back. The list scrolls inside a box of fixed height (roster.css), so 60
// students do not make the console long. A confirmation in progress survives a redraw (a
// student joining meanwhile). Names are data: drawn with textContent, never as HTML.
const confirming = new Map(); // component key → the number of the student whose removal is being confirmed

function element(tag, className = "", text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

function button(text, className, label, onClick) {
  const node = element("button", `rr-button ${className}`, text);
  node.type = "button";
  if (label) node.setAttribute("aria-label", label);
  node.addEventListener("click", onClick);
  return node;
}

function row(student, id, redraw, setTriggerValue) {
  const item = element("li", student.here ? "rr-row" : "rr-row rr-away");
  item.dataset.number = String(student.n);
  if (confirming.get(id) === student.n) {
    item.classList.add("rr-asking");
    item.append(
      element("span", "rr-question", `Remove ${student.label}? Their answers go too.`),
      button("Yes, remove", "rr-yes", `Yes, remove ${student.label}`, () => {
        confirming.delete(id);
        setTriggerValue("remove", student.n);
      }),
      button("Keep", "rr-keep", `Keep ${student.label}`, () => {
        confirming.delete(id);
        redraw();
      }),
    );
    return item;
  }
  const name = element("span", "rr-name", student.label);
  name.title = student.label;
  item.append(name);
  if (student.answered) {
    const mark = element("span", "rr-mark", "✓");
    mark.setAttribute("aria-label", "answered");
    mark.title = "answered the current question";
    item.append(mark);
  }
  if (!student.here) item.append(element("span", "rr-state", "left"));
  item.append(
    button("Remove", "rr-remove", `Remove ${student.label}`, () => {
      confirming.set(id, student.n);
      redraw();
    }),
  );
  return item;
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const id = component.key || "relpos.class_roster";
  let list = parentElement.querySelector(":scope > .relpos-roster");
  if (!list) {
    list = element("ul", "relpos-roster");
    list.setAttribute("aria-label", "Students in the class");
    parentElement.append(list);
  }
  const students = data.rows || [];
  if (!students.some((student) => student.n === confirming.get(id))) confirming.delete(id); // removed meanwhile
  const redraw = () => list.replaceChildren(...students.map((student) => row(student, id, redraw, setTriggerValue)));
  redraw();
  list.hidden = students.length === 0;
}
