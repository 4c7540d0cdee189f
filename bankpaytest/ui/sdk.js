// bankpay sandbox client script: establish (lightbox) and selectBankWidget (inline).
(function () {
  "use strict";
  var base = (document.currentScript && document.currentScript.src || "").replace(/\/ui\/sdk\.js.*$/, "");
  function start(data, cb) {
    var x = new XMLHttpRequest();
    x.open("POST", base + "/ui/session");
    // A simple request (text/plain): no CORS preflight.
    x.onload = function () {
      var r = {};
      try { r = JSON.parse(x.responseText); } catch (e) { r = { message: "bad answer" }; }
      cb(x.status === 200 ? null : r, r.url ? base + r.url : null);
    };
    x.send(JSON.stringify(data));
  }
  function frame(url) {
    var f = document.createElement("iframe");
    f.src = url; f.title = "Select your bank";
    f.style.cssText = "width:100%;height:32rem;border:0;background:#fff";
    return f;
  }
  function showError(where, err) {
    var p = document.createElement("p");
    p.setAttribute("role", "alert"); p.className = "bankpay-error";
    var e = err && err.errors && err.errors[0];
    p.textContent = "Error " + (e ? e.code + ": " + e.message : (err && err.message));
    where.appendChild(p);
  }
  function establish(data, opts) {
    opts = opts || {};
    var ov = document.createElement("div");
    ov.id = "bankpay-lightbox"; ov.setAttribute("role", "dialog"); ov.setAttribute("aria-modal", "true");
    ov.setAttribute("aria-label", "Bank selection");
    ov.style.cssText = "position:fixed;inset:0;background:rgba(0,0,0,.5);display:flex;align-items:center;justify-content:center;z-index:9999";
    var box = document.createElement("div");
    box.style.cssText = "background:#fff;width:min(28rem,95vw);border-radius:8px;padding:.5rem;position:relative";
    ov.appendChild(box);
    if (opts.closeButton !== false) {
      var c = document.createElement("button");
      c.type = "button"; c.textContent = "Close"; c.setAttribute("aria-label", "Close");
      c.onclick = function () { ov.remove(); };
      box.appendChild(c);
    }
    document.body.appendChild(ov);
    start(data, function (err, url) {
      if (err) { showError(box, err); return; }
      box.appendChild(frame(url));
    });
  }
  function selectBankWidget(data, opts) {
    opts = opts || {};
    var el = document.getElementById(opts.widgetContainerId || "bankpay-widget");
    if (!el) { throw new Error("bankpay: widgetContainerId not found"); }
    start(data, function (err, url) {
      if (err) { showError(el, err); return; }
      el.appendChild(frame(url));
    });
  }
  window.BankPay = { establish: establish, selectBankWidget: selectBankWidget };
})();
