// A small DOM for running the pages' scripts under node (no browser here, no jsdom in the project):
// elements parsed from HTML, ids, classes, data-* attributes, selects with their options, focus,
// event listeners that bubble, and a count of innerHTML assignments (a redraw) per element.
// Enough for service/static/umpire.js; not a browser: layout, CSS and forms are absent.
"use strict";

const VOID = new Set(["input", "br", "meta", "link", "img", "hr"]);
const ENTITIES = {amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: "\u00a0"};
const decode = (s) => s.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (m, e) => ENTITIES[e]);

class Text {
  constructor(text) { this.text = text; this.parentNode = null; }
  get textContent() { return this.text; }
}

class Element {
  constructor(tag, attrs = {}) {
    this.tagName = tag.toUpperCase();
    this.attrs = attrs;
    this.childNodes = [];
    this.parentNode = null;
    this.listeners = {};
    this.style = {setProperty() {}};
    this.innerHTMLSets = 0;
    this.selected = "selected" in attrs;
    this._value = attrs.value;
  }
  get id() { return this.attrs.id || ""; }
  get className() { return this.attrs.class || ""; }
  set className(v) { this.attrs.class = v; }
  get classList() {
    const el = this, list = () => el.className.split(/\s+/).filter(Boolean);
    return {
      contains: (c) => list().includes(c),
      add: (c) => { if (!list().includes(c)) el.className = [...list(), c].join(" "); },
      remove: (c) => { el.className = list().filter((x) => x !== c).join(" "); },
      toggle: (c, on) => ((on ?? !list().includes(c)) ? el.classList.add(c) : el.classList.remove(c)),
      get 0() { return list()[0]; },
    };
  }
  get dataset() {
    const out = {};
    for (const [k, v] of Object.entries(this.attrs)) {
      if (k.startsWith("data-")) out[k.slice(5).replace(/-(\w)/g, (m, c) => c.toUpperCase())] = v;
    }
    return out;
  }
  getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  get children() { return this.childNodes.filter((n) => n instanceof Element); }
  get firstElementChild() { return this.children[0] || null; }
  get nextElementSibling() {
    if (!this.parentNode) return null;
    const sibs = this.parentNode.children;
    return sibs[sibs.indexOf(this) + 1] || null;
  }
  get textContent() { return this.childNodes.map((n) => n.textContent).join(""); }
  set textContent(v) { this._adopt([new Text(String(v))]); }
  get innerHTML() { return this.childNodes.map(serialize).join(""); }
  set innerHTML(html) { this.innerHTMLSets++; this._adopt(parse(String(html))); }
  _adopt(nodes) {
    for (const n of this.childNodes) n.parentNode = null;
    this.childNodes = nodes;
    for (const n of nodes) n.parentNode = this;
  }
  appendChild(n) { return this.insertBefore(n, null); }
  insertBefore(n, ref) {
    if (n.parentNode) n.parentNode._drop(n);
    const i = ref ? this.childNodes.indexOf(ref) : -1;
    if (i < 0) this.childNodes.push(n); else this.childNodes.splice(i, 0, n);
    n.parentNode = this;
    return n;
  }
  _drop(n) {
    this.childNodes = this.childNodes.filter((x) => x !== n);
    n.parentNode = null;
    if (n instanceof Element && n.contains(document.activeElement)) document.activeElement = document.body;
  }
  remove() { if (this.parentNode) this.parentNode._drop(this); }
  replaceWith(n) {
    const p = this.parentNode;
    if (!p) return;
    p.insertBefore(n, this);
    p._drop(this);
  }
  contains(n) { for (let x = n; x; x = x.parentNode) if (x === this) return true; return false; }
  *descendants() { for (const c of this.children) { yield c; yield* c.descendants(); } }
  matches(sel) {
    return sel.split(",").some((one) => {
      const m = one.trim().match(/^([a-z0-9]*)((?:[.#][\w-]+)*)((?:\[[\w-]+(?:="[^"]*")?\])*)$/i);
      if (!m) throw new Error(`minidom: selector ${one} not supported`);
      if (m[1] && m[1].toUpperCase() !== this.tagName) return false;
      for (const [, kind, name] of m[2].matchAll(/([.#])([\w-]+)/g)) {
        if (kind === "." ? !this.classList.contains(name) : this.id !== name) return false;
      }
      for (const [, k, v] of m[3].matchAll(/\[([\w-]+)(?:="([^"]*)")?\]/g)) {
        if (!(k in this.attrs) || (v !== undefined && this.attrs[k] !== v)) return false;
      }
      return true;
    });
  }
  querySelectorAll(sel) { return [...this.descendants()].filter((e) => e.matches(sel)); }
  querySelector(sel) { return this.querySelectorAll(sel)[0] || null; }
  closest(sel) { for (let x = this; x instanceof Element; x = x.parentNode) if (x.matches(sel)) return x; return null; }
  addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); }
  // an event from this element, up through its ancestors (listeners and on<type> properties)
  dispatch(type) {
    const ev = {type, target: this, preventDefault() {}};
    const out = [];
    for (let x = this; x; x = x.parentNode) {
      for (const fn of (x.listeners || {})[type] || []) out.push(fn.call(x, ev));
      if (typeof x["on" + type] === "function") out.push(x["on" + type](ev));
    }
    return Promise.all(out);
  }
  focus() { document.activeElement = this; }
  // form controls
  get options() { return this.querySelectorAll("option"); }
  get value() {
    if (this.tagName === "SELECT") {
      const opts = this.options, on = opts.filter((o) => o.selected).pop() || opts[0];
      return on ? on.value : "";
    }
    if (this.tagName === "OPTION") return this._value !== undefined ? this._value : this.textContent;
    return this._value !== undefined ? this._value : "";
  }
  set value(v) {
    if (this.tagName === "SELECT") { for (const o of this.options) o.selected = o.value === String(v); return; }
    this._value = String(v);
  }
}

function serialize(n) {
  if (n instanceof Text) return n.text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const attrs = Object.entries(n.attrs).map(([k, v]) => (v === "" ? ` ${k}` : ` ${k}="${v.replace(/"/g, "&quot;")}"`)).join("");
  const tag = n.tagName.toLowerCase();
  return VOID.has(tag) ? `<${tag}${attrs}>` : `<${tag}${attrs}>${n.childNodes.map(serialize).join("")}</${tag}>`;
}

// HTML as the pages write it: tags with quoted attributes, text, the entities DC.esc writes
function parse(html) {
  const root = new Element("root");
  let cur = root;
  const re = /<!--[\s\S]*?-->|<!doctype[^>]*>|<\/([\w-]+)\s*>|<([\w-]+)((?:\s+[\w:-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>|([^<]+)/gi;
  for (const m of html.matchAll(re)) {
    if (m[1]) {  // a closing tag: up to the element it closes
      const tag = m[1].toUpperCase();
      for (let x = cur; x !== root; x = x.parentNode) if (x.tagName === tag) { cur = x.parentNode; break; }
    } else if (m[2]) {
      const attrs = {};
      for (const a of m[3].matchAll(/([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
        attrs[a[1].toLowerCase()] = decode(a[2] ?? a[3] ?? a[4] ?? "");
      }
      const el = new Element(m[2], attrs);
      cur.appendChild(el);
      if (!m[4] && !VOID.has(m[2].toLowerCase())) cur = el;
    } else if (m[5]) cur.appendChild(new Text(decode(m[5])));
  }
  const nodes = root.childNodes;
  for (const n of nodes) n.parentNode = null;
  return nodes;
}

const document = {
  body: new Element("body"),
  activeElement: null,
  createElement: (tag) => new Element(tag),
  getElementById(id) { return [...this.body.descendants()].find((e) => e.id === id) || null; },
  querySelector(sel) { return this.body.querySelector(sel); },
  querySelectorAll(sel) { return this.body.querySelectorAll(sel); },
};
document.activeElement = document.body;

// the page's body from its HTML file
function loadPage(html) {
  const body = html.match(/<body[^>]*>([\s\S]*)<\/body>/i);
  document.body.innerHTML = (body ? body[1] : html).replace(/<script[\s\S]*?<\/script>/gi, "");
  return document;
}

module.exports = {document, loadPage, Element};
