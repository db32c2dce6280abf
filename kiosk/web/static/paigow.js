/* Pai Gow dealer display: renders the state pushed by the kiosk (server-sent events). */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("page-config").textContent);
  var state = JSON.parse(document.getElementById("initial-state").textContent);
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var lastMessage = Date.now(), lostSince = null, source = null, lastActionSeq = null;

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = text;
    return n;
  }
  function money(v) { return v === null || v === undefined ? "" : (v > 0 ? "+" : "") + v; }

  function cardNode(c) {
    var n = el("span", "card" + (c.doubt ? " doubt" : ""));
    n.dataset.card = c.text;
    n.dataset.colour = c.colour;
    n.title = c.doubt ? c.text + ": needs dealer check" : c.text;
    n.appendChild(el("span", "rank", c.rank));
    n.appendChild(el("span", "suit", c.symbol));
    return n;
  }
  function handNode(label, cards, result, words) {
    var row = el("div", "pg-hand");
    row.dataset.hand = label;
    row.appendChild(el("span", "label", label));
    cards.forEach(function (c) { row.appendChild(cardNode(c)); });
    if (words) row.appendChild(el("span", "pg-words", words));
    if (result) { var r = el("span", "result", result); r.dataset.r = result; row.appendChild(r); }
    return row;
  }
  function setting(title, s, words) {
    var box = el("div", "setting");
    box.appendChild(el("h4", "", title));
    box.appendChild(handNode("high", s.high, null, words && words.high));
    box.appendChild(handNode("low", s.low, null, words && words.low));
    return box;
  }

  function renderBanker(b) {
    var node = $("banker");
    node.textContent = "";
    if (!b) { node.appendChild(el("h3", "", "Banker")); return; }
    var head = el("h3", "", "Banker (" + b.who + ")");
    if (b.net !== null) head.appendChild(el("span", "pg-money", "net " + money(b.net) +
      (b.commission ? " after commission " + b.commission : "")));
    node.appendChild(head);
    var row = el("div", "settings");
    row.appendChild(setting("Laid out", b.laid_out, null));
    if (b.house_way) {
      row.appendChild(setting("House way", b.house_way, b.hands));
      var flag = el("span", "flag", b.follows_house_way ? "\u2714 follows the house way" : "\u2716 NOT THE HOUSE WAY");
      flag.id = "house-way-flag";
      flag.dataset.follows = String(b.follows_house_way);
      row.appendChild(flag);
    }
    node.appendChild(row);
  }

  function renderSpot(s) {
    var node = el("article", "pg-spot");
    node.id = "spot-" + s.seat;
    node.dataset.status = s.status;
    var head = el("h3", "", "SEAT " + s.seat);
    if (s.bet !== null && s.bet !== undefined) head.appendChild(el("span", "bet", "bet " + s.bet));
    head.appendChild(el("span", "badge", s.badge));
    node.appendChild(head);
    node.appendChild(handNode("high", s.high, s.high_result, s.hands && s.hands.high));
    node.appendChild(handNode("low", s.low, s.low_result, s.hands && s.hands.low));
    if (s.foul) node.appendChild(el("div", "pg-words", "foul: " + s.foul));
    if (s.net !== null) node.appendChild(el("div", "pg-money", "net " + money(s.net) +
      (s.commission ? "  (commission " + s.commission + ")" : "")));
    return node;
  }

  function list(id, items, fn) {
    var ul = $(id);
    ul.textContent = "";
    items.forEach(function (it) { ul.appendChild(fn(it)); });
  }

  function render(st) {
    state = st;
    $("hand-id").textContent = st.hand_id || "\u2014";
    $("phase").textContent = st.phase_text;
    var h = $("headline");
    h.dataset.kind = st.headline.kind;
    h.textContent = st.headline.text;
    renderBanker(st.banker);
    var spots = $("spots");
    spots.textContent = "";
    st.spots.forEach(function (s) { spots.appendChild(renderSpot(s)); });
    list("payments", st.payments, function (p) { var li = el("li", "", p.text); li.dataset.outcome = p.outcome; return li; });
    $("house-commission").textContent = st.house_commission === null ? "" : "House commission: " + st.house_commission;
    list("checks", st.checks, function (c) { return el("li", "", c); });
    list("warnings", st.warnings, function (w) { return el("li", "", w); });
    var act = st.last_action;
    $("last-action").textContent = act ? (act.ok ? "" : "refused: ") + (act.message || act.kind) : "\u2014";
    if (act && act.seq !== lastActionSeq && lastActionSeq !== null) toast(act.message || act.kind);
    lastActionSeq = act ? act.seq : lastActionSeq;
    var src = st.source && st.source.status;
    $("source-status").textContent = src === "lost" || src === "reconnecting" ? "\u26A0 CAMERA " + src.toUpperCase()
      : src === "ended" ? "recording ended" : "";
  }

  var toastTimer = null;
  function toast(text) {
    var t = $("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { t.hidden = true; }, 5000);
  }

  function setLost(lost) {
    if (lost && lostSince === null) lostSince = new Date();
    if (!lost) lostSince = null;
    $("lost").hidden = !lost;
    if (lost) $("lost-since").textContent = "(since " + lostSince.toLocaleTimeString() + ")";
    document.body.classList.toggle("stale", lost);
    $("conn").dataset.state = lost ? "lost" : "live";
    $("conn-text").textContent = lost ? "LOST" : "LIVE";
  }
  function connect() {
    if (source) source.close();
    source = new EventSource("events");
    source.addEventListener("hello", function (e) {
      lastMessage = Date.now();
      if (JSON.parse(e.data).boot !== cfg.boot) { location.reload(); return; }
      setLost(false);
    });
    source.addEventListener("state", function (e) { lastMessage = Date.now(); setLost(false); render(JSON.parse(e.data)); });
    source.addEventListener("heartbeat", function () { lastMessage = Date.now(); setLost(false); });
    source.addEventListener("bye", function () { setLost(true); });
    source.onerror = function () {
      setLost(true);
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
    };
  }
  setInterval(function () {
    if (Date.now() - lastMessage > cfg.heartbeat_ms * 2.5 + 1000) { setLost(true); lastMessage = Date.now(); connect(); }
  }, 1000);

  $("btn-new-hand").addEventListener("click", function () {
    if (!window.confirm("Clear the table and start a new hand?")) return;
    fetch("action", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ kind: "new_hand" }) }).catch(function () { toast("the kiosk did not answer"); });
  });
  var camTimer = null;
  function refreshCamera() {
    fetch("camera.jpg?t=" + Date.now(), { cache: "no-store" }).then(function (r) {
      if (!r.ok) return r.json().then(function (j) { $("camera-error").textContent = j.error || "no frame"; });
      $("camera-info").textContent = "frame " + (r.headers.get("X-Frame-Index") || "?");
      return r.blob().then(function (b) { $("camera-img").src = URL.createObjectURL(b); });
    }).catch(function () { $("camera-error").textContent = "the kiosk did not answer"; });
  }
  $("btn-camera").addEventListener("click", function () {
    $("dlg-camera").showModal(); refreshCamera(); camTimer = setInterval(refreshCamera, 1000);
  });
  $("dlg-camera").addEventListener("close", function () { clearInterval(camTimer); });
  document.querySelectorAll("[data-close]").forEach(function (b) {
    b.addEventListener("click", function () { b.closest("dialog").close(); });
  });
  render(state);
  connect();
})();
