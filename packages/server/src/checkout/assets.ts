// The checkout's CSS and its optional script, both files served from /pay/assets under versioned
// URLs that are cached for good (the CSP allows no inline script; the only inline style is the
// theme's three colours, under the response's nonce). The stylesheet is linked from the page's head,
// so it blocks the first paint (no flash) and is fetched once per browser, not sent with every page
// (docs/decisions.md#checkout-pages). The page works without the script; it only formats the card number and expiry as you
// type and stops a second click on the pay button.
import { createHash } from "node:crypto";

export const CHECKOUT_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,Helvetica Neue,Arial,sans-serif;color:#1a1d21;background:#f3f5f7}
a{color:var(--accent)}
.top{background:#fff;border-top:4px solid var(--brand);border-bottom:1px solid #e1e5ea}
.wrap{max-width:980px;margin:0 auto;padding:0 16px}
.top .wrap{display:flex;align-items:center;justify-content:space-between;gap:12px;min-height:64px}
.brand{display:flex;align-items:center;gap:10px;font-weight:650;font-size:1.125rem;min-width:0;overflow-wrap:anywhere}
.brand img{display:block;max-height:40px;max-width:160px;width:auto}
.badge{flex:none;display:grid;place-items:center;width:36px;height:36px;border-radius:8px;background:var(--brand);color:var(--on-brand);font-weight:700}
.lang{flex:none;color:#1a1d21;text-decoration:none;border:1px solid #c9d0d8;border-radius:999px;padding:6px 14px;font-size:.9rem}
.lang:hover{background:#f3f5f7}
main.wrap{padding-top:20px;padding-bottom:32px}
.grid{display:grid;gap:16px}
@media(min-width:840px){main.wrap{padding-top:32px}.grid{grid-template-columns:minmax(0,5fr) minmax(0,6fr);gap:24px;align-items:start}.summary{position:sticky;top:16px}}
.card{background:#fff;border:1px solid #e1e5ea;border-radius:12px;padding:20px}
@media(min-width:840px){.card{padding:28px}}
h1,h2{line-height:1.25;margin:0 0 12px}
h1{font-size:1.3rem}
h2{font-size:1.1rem}
.muted{color:#5b6470}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.items{width:100%;border-collapse:collapse;margin-bottom:4px}
.items th{text-align:left;font-weight:600}
.items td{padding:10px 0;border-bottom:1px solid #e9edf1;vertical-align:top}
.items td.amt{text-align:right;white-space:nowrap;padding-left:12px;font-variant-numeric:tabular-nums}
.items .meta{display:block;color:#5b6470;font-size:.9rem}
.items .was{display:block;color:#5b6470;font-size:.85rem;text-decoration:line-through}
.items .off{display:block;color:#1e6b3a;font-size:.9rem}
.total{display:flex;justify-content:space-between;align-items:baseline;gap:12px;margin:14px 0 0;font-size:1.5rem;font-weight:700;font-variant-numeric:tabular-nums}
.total span:first-child{font-size:1.05rem;font-weight:600}
.saves{margin:14px 0 0;padding:12px 14px;background:#f3f6fa;border-radius:8px;font-size:.95rem}
fieldset{border:0;margin:0 0 10px;padding:0;min-width:0}
legend{font-weight:650;font-size:1.1rem;margin:0 0 10px;padding:0}
.field{margin:0 0 16px}
label{display:block;font-weight:550;margin-bottom:4px}
.opt,.hint{font-weight:400;color:#5b6470}
.hint{display:block;font-size:.875rem;margin:-2px 0 6px}
input,textarea{display:block;width:100%;font:inherit;font-size:1rem;color:inherit;background:#fff;border:1px solid #8d97a3;border-radius:8px;padding:11px 12px;min-height:48px}
textarea{min-height:88px;resize:vertical}
input[readonly]{background:#f1f3f5;border-color:#d3d9df;color:#3d444c}
input:focus,textarea:focus{outline:3px solid var(--accent);outline-offset:1px;border-color:var(--accent)}
a:focus-visible,button:focus-visible{outline:3px solid var(--accent);outline-offset:3px}
[aria-invalid=true]{border:2px solid #b3261e}
.error{color:#b3261e;font-weight:550;font-size:.925rem;margin:6px 0 0}
.saved{margin:0 0 16px}
.choice{display:flex;align-items:center;gap:10px;margin:0 0 8px;padding:10px 12px;border:1px solid #8d97a3;border-radius:8px;font-weight:500;cursor:pointer}
.choice input{width:20px;height:20px;min-height:0;margin:0;flex:none;accent-color:var(--accent)}
.choice:has(input:checked){border-color:var(--accent);box-shadow:0 0 0 1px var(--accent)}
form:has(.saved input[data-saved]:checked) .newcard{display:none}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.pay{display:block;width:100%;min-height:56px;margin-top:8px;border:0;border-radius:10px;background:var(--brand);color:var(--on-brand);font:inherit;font-size:1.15rem;font-weight:700;cursor:pointer}
.pay:hover{filter:brightness(.93)}
.pay[aria-disabled=true]{opacity:.7;cursor:progress}
.secure{display:flex;align-items:center;justify-content:center;gap:6px;margin:12px 0 0;color:#5b6470;font-size:.875rem;text-align:center}
.secure svg{flex:none}
.alert{border:2px solid #b3261e;background:#fdf0ef;border-radius:10px;padding:14px 16px;margin:0 0 18px}
.alert h2{color:#8c1d18;font-size:1.05rem;margin:0 0 4px}
.alert p{margin:4px 0 0}
.alert ul{margin:6px 0 0;padding-left:20px}
.alert a{color:#8c1d18;font-weight:550}
.info{border-color:#c9d0d8;background:#f3f6fa}
.info h2{color:#1a1d21}
.center{max-width:560px;margin:0 auto;text-align:center}
.center .icon{display:inline-grid;place-items:center;width:56px;height:56px;border-radius:50%;margin-bottom:12px;background:#f3f5f7;color:#5b6470}
.center .ok{background:#e4f3e9;color:#1e6b3a}
.receipt{display:grid;grid-template-columns:auto 1fr;gap:8px 16px;margin:20px 0;text-align:left}
.receipt dt{color:#5b6470}
.receipt dd{margin:0;font-weight:600;overflow-wrap:anywhere;font-variant-numeric:tabular-nums}
.ref{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95rem}
footer{color:#5b6470;font-size:.8rem;text-align:center;padding:0 16px 24px}
@media(prefers-reduced-motion:no-preference){.pay{transition:filter .15s}}
`
  .trim()
  .replace(/\n/g, "");

export const CHECKOUT_JS = `(function(){
"use strict";
var form=document.querySelector("form[data-checkout]");
if(!form)return;
var number=form.querySelector("[name=cardNumber]");
if(number)number.addEventListener("input",function(){
var d=number.value.replace(/\\D/g,"").slice(0,19);
var s=d.replace(/(\\d{4})(?=\\d)/g,"$1 ");
if(s!==number.value)number.value=s;
});
var expiry=form.querySelector("[name=cardExpiry]");
if(expiry)expiry.addEventListener("input",function(e){
var d=expiry.value.replace(/\\D/g,"").slice(0,4);
var s=d.length>2?d.slice(0,2)+"/"+d.slice(2):(d.length===2&&e.inputType&&e.inputType.indexOf("delete")!==0?d+"/":d);
if(s!==expiry.value)expiry.value=s;
});
var button=form.querySelector("button[type=submit]");
var label=button?button.textContent:"";
form.addEventListener("submit",function(e){
if(form.getAttribute("data-sent")){e.preventDefault();return;}
form.setAttribute("data-sent","1");
if(button){button.setAttribute("aria-disabled","true");if(button.getAttribute("data-busy"))button.textContent=button.getAttribute("data-busy");}
});
window.addEventListener("pageshow",function(){
form.removeAttribute("data-sent");
if(button){button.removeAttribute("aria-disabled");button.textContent=label;}
});
})();
`;

/** Cache-busting version of a file's URL: changes whenever the file does. */
function version(content: string): string {
  return createHash("sha256").update(content).digest("hex").slice(0, 12);
}
export const CHECKOUT_JS_PATH = `/pay/assets/checkout.js?v=${version(CHECKOUT_JS)}`;
export const CHECKOUT_CSS_PATH = `/pay/assets/checkout.css?v=${version(CHECKOUT_CSS)}`;
