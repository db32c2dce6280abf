/* Live dealer display: renders the state pushed by the kiosk (server-sent events) and sends dealer actions. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("page-config").textContent);
  var state = JSON.parse(document.getElementById("initial-state").textContent);
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var ROW_LABEL = { front: "F", middle: "M", back: "B", pile: "P" };
  var ROW_NAME = { front: "front", middle: "middle", back: "back", pile: "pile" };
  var SUIT_NAME = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
  var lastMessage = Date.now();
  var lostSince = null;
  var source = null;
  var lastActionSeq = null;

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function signed(n) { return n > 0 ? "+" + n : String(n); }
  function signClass(n) { return n > 0 ? "pos" : n < 0 ? "neg" : ""; }

  // ---------- rendering ----------
  function cardNode(card, seat, row, index, corrected) {
    var b = el("button", "card");
    b.type = "button";
    b.dataset.card = card.text;
    b.dataset.colour = card.colour;
    b.dataset.seat = seat;
    b.dataset.row = row;
    b.dataset.index = index;
    if (card.doubt) b.classList.add("doubt");
    if (corrected) b.classList.add("corrected");
    b.setAttribute("aria-label", card.rank + " of " + (SUIT_NAME[card.suit] || "?") +
      (card.doubt ? " (needs check)" : ""));
    b.appendChild(el("span", "rank", card.rank));
    b.appendChild(el("span", "suit", card.symbol));
    return b;
  }

  function rowNode(label, rowName, cards, expected, seat, offset, corrections, short) {
    var r = el("div", "row" + (short ? " short" : ""));
    if (cards.length > 5) {  // more cards than a row holds (a misplaced card): narrower, never outside the seat
      r.classList.add("over");
      r.style.setProperty("--n", cards.length);
    }
    r.dataset.row = rowName;
    r.appendChild(el("span", "row-label", label));
    var box = el("div", "cards");
    cards.forEach(function (c, i) {
      var idx = offset + i;
      var fixed = corrections.some(function (k) { return k.row === rowName && k.index === idx && k.after === c.text; });
      box.appendChild(cardNode(c, seat, rowName, idx, fixed));
    });
    for (var k = cards.length; k < expected; k++) box.appendChild(el("span", "card slot"));
    r.appendChild(box);
    return r;
  }

  function renderSeat(s) {
    var node = document.querySelector('.seat[data-position="' + s.position + '"]');
    if (!node) return;
    node.textContent = "";
    node.dataset.seat = s.seat;
    node.dataset.status = s.badge.kind;
    node.id = "seat-" + s.seat;
    var head = el("div", "seat-head");
    head.dataset.seat = s.seat;
    head.appendChild(el("span", "seat-name", "SEAT " + s.seat));
    if (s.is_button) {
      var disc = el("span", "btn-disc", "BTN");
      disc.title = "button";
      head.appendChild(disc);
    }
    if (s.stack !== null && s.stack !== undefined) head.appendChild(el("span", "seat-stack", "stack " + s.stack));
    if (s.points !== null && s.points !== undefined) {
      head.appendChild(el("span", "seat-points " + signClass(s.points), signed(s.points)));
    }
    // the seat's actions, always visible, with the key that opens them
    var tools = el("button", "seat-tools", "\u2630 actions ");
    tools.type = "button";
    tools.title = "Seat " + s.seat + ": declare natural, move button, mark dead, stack (key " + s.seat + ")";
    tools.appendChild(el("kbd", "", String(s.seat)));
    head.appendChild(tools);
    head.addEventListener("click", function () { openSeat(s); });
    node.appendChild(head);
    var status = el("div", "seat-status");
    var badge = el("span", "badge");
    badge.dataset.kind = s.badge.kind;
    badge.appendChild(el("span", "badge-icon", s.badge.icon));
    badge.appendChild(el("span", "badge-text", s.badge.text));
    status.appendChild(badge);
    var detail = s.badge.detail || "";
    var d = el("span", "seat-detail", detail);
    status.title = s.badge.text + (detail ? ": " + detail : "");
    status.appendChild(d);
    status.addEventListener("click", function () { openSeat(s); });
    node.appendChild(status);
    if (s.pile.length && !s.rows.some(function (r) { return r.cards.length; })) {
      // a natural's pile: 13 cards shown as 5 + 5 + 3, in the order read
      [[0, 5], [5, 10], [10, 13]].forEach(function (span) {
        node.appendChild(rowNode("P", "pile", s.pile.slice(span[0], span[1]), 0, s.seat, span[0], s.corrections, false));
      });
      node.classList.add("pile");
    } else {
      node.classList.remove("pile");
      s.rows.forEach(function (r) {
        node.appendChild(rowNode(ROW_LABEL[r.row], r.row, r.cards, r.expected, s.seat, 0, s.corrections, r.short));
      });
    }
  }

  function renderPayments(st) {
    var list = $("payments");
    list.textContent = "";
    var hold = $("hold");
    if (st.pay_held) {
      hold.hidden = false;
      hold.textContent = "";
      hold.appendChild(el("div", "hold-title", "HOLD: no payments until this is resolved"));
      st.hold_reasons.forEach(function (r) { hold.appendChild(el("div", "hold-reason", r)); });
      return;
    }
    hold.hidden = true;
    if (!st.verdict) {
      list.appendChild(el("li", "empty", "No verdict yet."));
      return;
    }
    if (!st.payments.length) {
      list.appendChild(el("li", "empty", "No payments: every pair is even."));
      return;
    }
    st.payments.forEach(function (p) {
      var li = el("li", p.amount ? "" : "zero");
      li.dataset.from = p.from;
      li.dataset.to = p.to;
      li.appendChild(el("span", "n", p.n + "."));
      li.appendChild(el("span", "who", "Seat " + p.from + " \u2192 Seat " + p.to));
      li.appendChild(el("span", "amount", p.amount ? String(p.amount) : "nothing"));
      if (p.shortfall) li.appendChild(el("span", "short", "\u26A0 short " + p.shortfall + " (all-in cap)"));
      list.appendChild(li);
    });
  }

  function renderTotals(st) {
    var box = $("totals");
    box.textContent = "";
    st.totals.forEach(function (t) {
      var d = el("div", "total");
      d.dataset.seat = t.seat;
      d.appendChild(el("span", "who", "Seat " + t.seat));
      d.appendChild(el("span", "pts " + signClass(t.points), t.points === null ? "\u2014" : signed(t.points)));
      box.appendChild(d);
    });
    var grid = $("grid");
    grid.textContent = "";
    if (!st.grid || st.pay_held) return;
    var head = el("tr");
    head.appendChild(el("th", "", ""));
    st.grid.seats.forEach(function (s) { head.appendChild(el("th", "", "S" + s)); });
    grid.appendChild(head);
    st.grid.seats.forEach(function (s, i) {
      var tr = el("tr");
      tr.appendChild(el("th", "", "S" + s));
      st.grid.matrix[i].forEach(function (v) {
        tr.appendChild(v === null ? el("td", "self", "") : el("td", signClass(v), signed(v)));
      });
      grid.appendChild(tr);
    });
  }

  function render(st) {
    state = st;
    document.body.dataset.phase = st.phase;
    document.body.dataset.version = st.version;
    document.body.dataset.verdict = st.verdict ? "yes" : "no";
    $("hand-id").textContent = st.hand_id || "\u2014";
    $("hand-id").title = st.hand_id || "";
    $("table-name").textContent = st.table;
    $("phase").textContent = st.phase_text;
    $("stake").textContent = st.stake;
    $("pair-stakes").textContent = st.pair_stakes.map(function (p) {
      return "seats " + p.seats[0] + "\u2013" + p.seats[1] + ": " + p.stake;
    }).join(", ");
    $("pair-stakes").hidden = !st.pair_stakes.length;
    $("pair-stakes").title = $("pair-stakes").textContent;
    showSource(st.source && st.source.status, st.frame_age);
    drawHeadline();
    st.seats.forEach(renderSeat);
    var act = st.last_action;
    var la = $("last-action");
    la.textContent = act ? (act.ok ? "\u2714 " : "\u2716 ") + (act.message || act.kind) + " (" +
      new Date(act.at * 1000).toLocaleTimeString() + ")" : "\u2014";
    la.dataset.ok = act ? String(act.ok) : "";
    if (act && act.seq !== lastActionSeq && lastActionSeq !== null) toast(act.message || act.kind, act.ok);
    if (act) lastActionSeq = act.seq;
    else lastActionSeq = lastActionSeq === null ? -1 : lastActionSeq;
    renderPayments(st);
    renderTotals(st);
    fitCards();
  }

  // ---------- fitting: no card ever covered or outside its seat, whatever the screen and the hand ----------
  function inside(r, box) {
    return r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
  }
  function overlap(a, b) {
    return a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  }
  function seatsFit(felt) {
    var box = felt.getBoundingClientRect();
    var seats = Array.prototype.filter.call(felt.querySelectorAll(".seat"), function (n) { return n.childElementCount; });
    var rects = seats.map(function (n) { return n.getBoundingClientRect(); });
    for (var i = 0; i < seats.length; i++) {
      if (!inside(rects[i], box)) return false;
      for (var j = i + 1; j < seats.length; j++) if (overlap(rects[i], rects[j])) return false;
      var cardsIn = seats[i].querySelectorAll(".card");
      for (var k = 0; k < cardsIn.length; k++) if (!inside(cardsIn[k].getBoundingClientRect(), rects[i])) return false;
    }
    return true;
  }
  function fitCards() {
    // live.css sizes the cards for five a row; wrapped reasons and a natural's pile can need less: shrink until it fits
    var felt = $("felt");
    felt.style.removeProperty("--card-h");
    var first = felt.querySelector(".card");
    if (!first) return;
    var h = first.getBoundingClientRect().height;
    for (var i = 0; i < 40 && !seatsFit(felt); i++) {
      h = Math.max(12, h * 0.95);
      felt.style.setProperty("--card-h", h.toFixed(1) + "px");
    }
    felt.dataset.cardH = Math.round(h);
  }
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(fitCards, 50);
  });

  // ---------- headline: the hand's verdict, or the camera alarm over it ----------
  var cameraAlarm = "";
  function drawHeadline() {
    var h = $("headline");
    var text = cameraAlarm || state.headline.text;
    h.dataset.kind = cameraAlarm ? "camera" : state.headline.kind;
    $("headline-text").textContent = text;
    h.title = text;
    document.body.dataset.camera = cameraAlarm ? "lost" : "ok";
    if (!lostSince) $("conn-text").textContent = cameraAlarm ? "NO CAMERA" : "LIVE";
  }

  var STALL_S = 5;
  function showSource(status, frameAge) {
    // the camera: lost, reconnecting, ended, or connected but no frame for a while (a stalled pipeline)
    var src = $("source-status");
    status = status || "";
    var stalled = status === "connected" && frameAge !== null && frameAge !== undefined && frameAge > STALL_S;
    src.dataset.status = stalled ? "lost" : status;
    src.textContent = status === "lost" || status === "reconnecting" ? "\u26A0 CAMERA " + status.toUpperCase()
      : stalled ? "\u26A0 NO CAMERA FRAME FOR " + Math.round(frameAge) + " s"
      : status === "ended" ? "recording ended" : "";
    var alarm = status === "lost" || status === "reconnecting"
      ? "CAMERA " + status.toUpperCase() + ": the kiosk cannot see the table, no cards are being read"
      : stalled ? "NO CAMERA FRAME FOR " + Math.round(frameAge) + " s: the kiosk is not reading the table" : "";
    if (alarm !== cameraAlarm) {
      cameraAlarm = alarm;
      drawHeadline();
      fitCards();
    }
  }

  var toastTimer = null;
  function toast(text, ok) {
    var t = $("toast");
    t.textContent = text;
    t.dataset.ok = String(ok !== false);
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { t.hidden = true; }, 5000);
  }

  // ---------- live connection ----------
  function setLost(lost) {
    var conn = $("conn");
    if (lost) {
      if (lostSince === null) lostSince = new Date();
      $("lost").hidden = false;
      $("lost-since").textContent = "(since " + lostSince.toLocaleTimeString() + ")";
      document.body.classList.add("stale");
      conn.dataset.state = "lost";
      $("conn-text").textContent = "LOST";
    } else {
      lostSince = null;
      $("lost").hidden = true;
      document.body.classList.remove("stale");
      conn.dataset.state = "live";
      $("conn-text").textContent = cameraAlarm ? "NO CAMERA" : "LIVE";
    }
  }

  function connect() {
    if (source) source.close();
    source = new EventSource("events");
    source.addEventListener("hello", function (e) {
      lastMessage = Date.now();
      var hello = JSON.parse(e.data);
      if (hello.boot !== cfg.boot) { location.reload(); return; } // the kiosk restarted: fresh page
      setLost(false);
    });
    source.addEventListener("state", function (e) {
      lastMessage = Date.now();
      setLost(false);
      render(JSON.parse(e.data));
    });
    source.addEventListener("heartbeat", function (e) {
      lastMessage = Date.now();
      setLost(false);
      var beat = JSON.parse(e.data);
      showSource(beat.source, beat.frame_age);
    });
    source.addEventListener("bye", function () { setLost(true); });
    source.onerror = function () {
      setLost(true);
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
    };
  }

  setInterval(function () {
    // heartbeats stopped: the stream is dead even if the browser has not noticed
    if (Date.now() - lastMessage > cfg.heartbeat_ms * 2.5 + 1000) {
      setLost(true);
      lastMessage = Date.now();
      connect();
    }
  }, 1000);

  // ---------- actions ----------
  function post(url, body) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
      credentials: "same-origin",
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) { return { status: r.status, body: j }; });
    }).catch(function () { return { status: 0, body: { error: "the kiosk did not answer" } }; });
  }

  function act(body, errorNode, dialog) {
    errorNode.textContent = "";
    return post("action", body).then(function (r) {
      if (r.status >= 200 && r.status < 300 && r.body.ok !== false) {
        if (dialog) dialog.close();
        toast(r.body.message || "done", true);
      } else {
        errorNode.textContent = r.body.error || r.body.message || ("refused (" + r.status + ")");
      }
      return r;
    });
  }

  document.querySelectorAll("dialog [data-close]").forEach(function (b) {
    b.addEventListener("click", function () { b.closest("dialog").close(); });
  });

  var seatOpen = null;
  function openSeat(s) {
    seatOpen = s;
    $("dlg-seat-title").textContent = "Seat " + s.seat;
    $("dlg-seat-detail").textContent = s.badge.text + (s.badge.detail ? ": " + s.badge.detail : "");
    var hands = $("dlg-seat-hands");
    hands.textContent = "";
    ["front", "middle", "back"].forEach(function (r) {
      if (s.row_hands && s.row_hands[r]) hands.appendChild(el("li", "", r + ": " + s.row_hands[r]));
    });
    if (s.explanation) hands.appendChild(el("li", "", s.explanation));
    s.corrections.forEach(function (c) {
      hands.appendChild(el("li", "", "corrected " + c.row + " " + (c.index + 1) + ": " + c.before + " \u2192 " +
        c.after + " by " + c.by + " at " + new Date(c.at * 1000).toLocaleTimeString()));
    });
    $("act-declare").textContent = (s.declared ? "Undo natural declaration" : "\u2605 Declare natural") + " (N)";
    $("act-dead").textContent = (s.dead ? "Seat is playing" : "Mark seat dead") + " (D)";
    $("act-button").disabled = !!s.is_button;
    $("act-stack-value").value = s.stack === null || s.stack === undefined ? "" : s.stack;
    $("dlg-seat-error").textContent = "";
    $("dlg-seat").showModal();
  }
  var dlgSeat = $("dlg-seat");
  $("act-declare").addEventListener("click", function () {
    act({ kind: seatOpen.declared ? "undeclare_natural" : "declare_natural", seat: seatOpen.seat }, $("dlg-seat-error"), dlgSeat);
  });
  $("act-button").addEventListener("click", function () {
    act({ kind: "move_button", seat: seatOpen.seat }, $("dlg-seat-error"), dlgSeat);
  });
  $("act-dead").addEventListener("click", function () {
    act({ kind: "set_dead", seat: seatOpen.seat, value: !seatOpen.dead }, $("dlg-seat-error"), dlgSeat);
  });
  $("act-stack").addEventListener("click", function () {
    act({ kind: "set_stack", seat: seatOpen.seat, value: $("act-stack-value").value }, $("dlg-seat-error"), dlgSeat);
  });
  $("act-stack-clear").addEventListener("click", function () {
    act({ kind: "set_stack", seat: seatOpen.seat, value: null }, $("dlg-seat-error"), dlgSeat);
  });

  $("btn-stake").addEventListener("click", function () {
    $("stake-value").value = state.stake;
    $("dlg-stake-error").textContent = "";
    $("dlg-stake").showModal();
  });
  $("stake-submit").addEventListener("click", function () {
    act({ kind: "set_stake", value: $("stake-value").value }, $("dlg-stake-error"), $("dlg-stake"));
  });
  $("pair-submit").addEventListener("click", function () {
    act({ kind: "set_stake", value: $("pair-value").value, pair: [+$("pair-a").value, +$("pair-b").value] },
      $("dlg-stake-error"), $("dlg-stake"));
  });
  $("btn-new-hand").addEventListener("click", function () {
    $("dlg-new-hand-error").textContent = "";
    $("dlg-new-hand").showModal();
  });
  $("new-hand-submit").addEventListener("click", function () {
    act({ kind: "new_hand" }, $("dlg-new-hand-error"), $("dlg-new-hand"));
  });

  // keyboard: 1-4 open a seat's actions, then N / B / D / S; C camera, K stake, H new hand (listed on the page)
  var SEAT_KEYS = { n: "act-declare", b: "act-button", d: "act-dead" };
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.altKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
    var key = e.key.toLowerCase();
    if (dlgSeat.open) {
      if (SEAT_KEYS[key]) { e.preventDefault(); $(SEAT_KEYS[key]).click(); }
      else if (key === "s") { e.preventDefault(); $("act-stack-value").focus(); }
      return;
    }
    if (document.querySelector("dialog[open]")) return;
    var seat = state.seats.filter(function (x) { return String(x.seat) === key; })[0];
    if (seat) { e.preventDefault(); openSeat(seat); }
    else if (key === "c") { e.preventDefault(); $("btn-camera").click(); }
    else if (key === "k") { e.preventDefault(); $("btn-stake").click(); }
    else if (key === "h") { e.preventDefault(); $("btn-new-hand").click(); }
  });

  // card correction (floor PIN)
  var RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
  var SUITS = [["s", "\u2660"], ["h", "\u2665"], ["d", "\u2666"], ["c", "\u2663"]];
  var fix = null;
  function pickerButtons(box, items, onPick) {
    box.textContent = "";
    items.forEach(function (it) {
      var b = el("button", it.cls || "", it.label);
      b.type = "button";
      b.setAttribute("role", "radio");
      b.setAttribute("aria-checked", "false");
      b.dataset.value = it.value;
      b.addEventListener("click", function () {
        box.querySelectorAll("button").forEach(function (o) { o.setAttribute("aria-checked", "false"); });
        b.setAttribute("aria-checked", "true");
        onPick(it.value);
      });
      box.appendChild(b);
    });
  }
  function afterText() {
    if (!fix.rank || !fix.suit) return null;
    return (fix.rank === "10" ? "T" : fix.rank) + fix.suit;
  }
  function openCard(btn) {
    if (!state.verdict) { toast("Cards can be corrected once there is a verdict.", false); return; }
    if (!state.pin_set) { toast("No floor PIN is set on this kiosk: run `kiosk pin` first.", false); return; }
    var doubt = btn.classList.contains("doubt");
    fix = { seat: +btn.dataset.seat, row: btn.dataset.row, index: +btn.dataset.index, before: btn.dataset.card,
            rank: null, suit: null };
    $("dlg-card-title").textContent = (doubt ? "Check" : "Correct") + " seat " + fix.seat + ", " + ROW_NAME[fix.row] +
      " card " + (fix.index + 1) + ": read as " + fix.before + (doubt ? " (unsure)" : "");
    $("card-submit").textContent = doubt ? "Confirm / correct card" : "Correct card";
    var four = state.four_colour;
    pickerButtons($("pick-rank"), RANKS.map(function (r) { return { label: r, value: r }; }),
      function (v) { fix.rank = v; $("card-after").textContent = afterText() || "?"; });
    pickerButtons($("pick-suit"), SUITS.map(function (s) {
      var cls = s[0] === "h" ? "red" : s[0] === "d" ? (four ? "blue" : "red") : s[0] === "c" && four ? "green" : "";
      return { label: s[1], value: s[0], cls: cls };
    }), function (v) { fix.suit = v; $("card-after").textContent = afterText() || "?"; });
    $("card-after").textContent = "?";
    var read = btn.dataset.card;
    if (doubt && /^[2-9TJQKA][shdc]$/.test(read)) {  // an unsure read: offer it, so the floor only confirms it
      $("pick-rank").querySelector('button[data-value="' + (read[0] === "T" ? "10" : read[0]) + '"]').click();
      $("pick-suit").querySelector('button[data-value="' + read[1] + '"]').click();
    }
    $("card-pin").value = "";
    $("dlg-card-error").textContent = "";
    $("dlg-card").showModal();
  }
  $("felt").addEventListener("click", function (e) {
    var btn = e.target.closest("button.card");
    if (btn) openCard(btn);
  });
  $("card-submit").addEventListener("click", function () {
    var after = afterText();
    if (!after) { $("dlg-card-error").textContent = "Pick the rank and the suit of the card as it really is."; return; }
    var body = { seat: fix.seat, row: fix.row, index: fix.index, before: fix.before, after: after,
                 by: $("card-by").value, pin: $("card-pin").value };
    $("card-pin").value = "";
    post("correct", body).then(function (r) {
      if (r.status >= 200 && r.status < 300 && r.body.ok !== false) {
        $("dlg-card").close();
        toast("Corrected seat " + fix.seat + " " + fix.row + " " + (fix.index + 1) + ": " + fix.before + " \u2192 " + after, true);
      } else {
        $("dlg-card-error").textContent = r.body.error || r.body.message || ("refused (" + r.status + ")");
      }
    });
  });

  // camera view, refreshed while open
  var camTimer = null;
  function refreshCamera() {
    var img = $("camera-img");
    fetch("camera.jpg?t=" + Date.now(), { cache: "no-store" }).then(function (r) {
      if (!r.ok) {
        return r.json().then(function (j) { $("camera-error").textContent = j.error || "no frame"; });
      }
      $("camera-info").textContent = "frame " + (r.headers.get("X-Frame-Index") || "?") + ", " +
        (r.headers.get("X-Cards") || "0") + " cards read";
      return r.blob().then(function (b) {
        var old = img.src;
        img.src = URL.createObjectURL(b);
        if (old && old.indexOf("blob:") === 0) URL.revokeObjectURL(old);
        $("camera-error").textContent = "";
      });
    }).catch(function () { $("camera-error").textContent = "the kiosk did not answer"; });
  }
  $("btn-camera").addEventListener("click", function () {
    $("dlg-camera").showModal();
    refreshCamera();
    camTimer = setInterval(refreshCamera, 1000);
  });
  $("dlg-camera").addEventListener("close", function () { clearInterval(camTimer); camTimer = null; });

  render(state);
  connect();
})();
