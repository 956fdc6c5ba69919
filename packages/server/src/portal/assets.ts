// The portal's CSS (inlined under each response's CSP nonce) and its optional script (served from
// /portal/assets: the CSP allows no inline script). Every page works without the script; it only
// adds copy buttons, item rows on the create form with a running total, and the theme preview
// following the inputs as they change.
import { createHash } from "node:crypto";

export const PORTAL_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,Helvetica Neue,Arial,sans-serif;color:#1a1d21;background:#f3f5f7}
a{color:#0b5cad}
.skip{position:absolute;left:-999px;top:8px;background:#fff;padding:8px 12px;z-index:2}
.skip:focus{left:8px}
.top{background:#14213d;color:#fff}
.top .wrap{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:8px 16px;padding-top:10px;padding-bottom:10px}
.brand{font-weight:700;font-size:1.05rem;color:#fff;text-decoration:none;overflow-wrap:anywhere}
.brand small{display:block;font-weight:400;font-size:.8rem;color:#c8d1e0}
.who{display:flex;flex-wrap:wrap;align-items:center;gap:8px;font-size:.85rem;color:#c8d1e0}
.who form{margin:0}
.top .lang,.top .link-button{color:#fff;border:1px solid #5d6b88;border-radius:999px;padding:4px 12px;background:none;font:inherit;font-size:.85rem;text-decoration:none;cursor:pointer;min-height:32px}
nav.main{background:#1f2f52}
nav.main ul{list-style:none;margin:0 auto;padding:0 8px;display:flex;flex-wrap:wrap;max-width:1180px}
nav.main a{display:block;padding:10px 10px;color:#e6ebf3;text-decoration:none;font-weight:550;border-bottom:3px solid transparent}
nav.main a[aria-current=page]{border-bottom-color:#7fb2ff;color:#fff}
.wrap{max-width:1180px;margin:0 auto;padding:0 16px}
main.wrap{padding-top:20px;padding-bottom:40px}
h1{font-size:1.4rem;margin:0 0 16px;line-height:1.25;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:0 0 12px;line-height:1.3}
h3{font-size:1rem;margin:16px 0 8px}
.card{background:#fff;border:1px solid #dde3ea;border-radius:10px;padding:16px;margin:0 0 16px;min-width:0}
@media(min-width:760px){.card{padding:20px}}
.grid{display:grid;gap:16px}
@media(min-width:900px){.grid.two{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px;margin:0 0 16px}
.stat{background:#fff;border:1px solid #dde3ea;border-radius:10px;padding:12px 14px}
.stat dt{color:#4f5966;font-size:.85rem}
.stat dd{margin:2px 0 0;font-size:1.3rem;font-weight:700;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.muted{color:#4f5966}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.mono,.ref{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem;overflow-wrap:anywhere}
.table-wrap{overflow-x:auto;margin:0 0 8px;position:relative}
.table-wrap:focus-visible{outline:3px solid #2f7de1;outline-offset:1px}
@media(max-width:600px){table.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:100%}table.cards tr{border-bottom:1px solid #d5dbe2;padding:8px 0}table.cards td{display:grid;grid-template-columns:auto minmax(0,1fr);column-gap:12px;align-items:baseline;border:0;padding:3px 0;text-align:right}table.cards td::before{content:attr(data-label);grid-row:1/span 4;font:600 15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,Helvetica Neue,Arial,sans-serif;color:#4f5966;text-align:left}table.cards td>*{grid-column:2;justify-self:end;min-width:0;overflow-wrap:anywhere}table.cards td.row-actions{display:block;text-align:left}table.cards td.row-actions .row{justify-content:flex-start}table.cards td:empty{display:none}table.cards .hint{text-align:right}}
td.masked-card{overflow-wrap:normal}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:8px 10px;border-bottom:1px solid #e6eaef;vertical-align:top}
th{font-size:.85rem;color:#4f5966;font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pill{display:inline-block;border-radius:999px;padding:1px 10px;font-size:.8rem;font-weight:600;background:#e8edf3;color:#2c3643;white-space:nowrap}
.pill.ok{background:#dff1e5;color:#175c31}
.pill.bad{background:#fbe3e1;color:#8c1d18}
.invitations{list-style:none;padding:0;margin:16px 0 0}
.invitations li{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:8px 16px;padding:12px 0;border-top:1px solid #e6ebf1;overflow-wrap:anywhere}
.pill.warn{background:#fdf0d5;color:#6b4a00}
form.inline{display:inline}
.field{margin:0 0 14px}
label,.label{display:block;font-weight:600;margin:0 0 4px}
.hint{display:block;font-weight:400;color:#4f5966;font-size:.85rem}
input,select,textarea{font:inherit;color:inherit;background:#fff;border:1px solid #8d97a3;border-radius:8px;padding:8px 10px;min-height:42px;width:100%;max-width:100%}
input[type=color]{width:64px;padding:2px}
input[type=checkbox],input[type=radio]{width:auto;min-height:0;margin:0 6px 0 0;vertical-align:middle}
fieldset{min-width:0}
fieldset.field{border:0;padding:0}
fieldset.card>legend{float:left;width:100%;padding:0;margin:0 0 12px;font-size:1.1rem}
fieldset.card>legend+*{clear:both}
[data-item]{border-bottom:1px solid #e6eaef;margin:0 0 12px}
[data-item]>button{margin:0 0 14px}
.items-total{margin:12px 0 0;font-weight:600}
.items-total output{font-variant-numeric:tabular-nums}
textarea{min-height:80px}
input:focus,select:focus,textarea:focus,a:focus-visible,button:focus-visible{outline:3px solid #2f7de1;outline-offset:1px}
[aria-invalid=true]{border:2px solid #b3261e}
.error{color:#b3261e;font-weight:600;font-size:.9rem;margin:4px 0 0}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-end}
.row>.field{flex:1 1 160px}
button,.button{display:inline-flex;align-items:center;justify-content:center;gap:6px;min-height:42px;border-radius:8px;border:1px solid #14213d;background:#14213d;color:#fff;font:inherit;font-weight:600;padding:8px 16px;cursor:pointer;text-decoration:none}
.row>h1+.button{margin:0 0 16px}
h1 .mono{font-size:inherit}
button.secondary,.button.secondary{background:#fff;color:#14213d}
button.danger,.button.danger{background:#fff;color:#8c1d18;border-color:#8c1d18}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0 0}
.actions+form{margin-top:20px}
details.more>summary{cursor:pointer;font-weight:600;padding:8px 0;min-height:24px}
ul.health{margin:6px 0 12px;padding-left:20px;color:#8c1d18}
.alert{border:2px solid #b3261e;background:#fdf0ef;border-radius:10px;padding:12px 14px;margin:0 0 16px}
.alert.info{border-color:#9ab3d6;background:#eef4fb}
.alert.ok{border-color:#6fb386;background:#eef8f1}
.secret{display:block;background:#fff8db;border:1px dashed #b58b00;border-radius:8px;padding:10px;font-family:ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.copy-row{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.copy-row code{flex:1 1 200px;overflow-wrap:anywhere}
dl.facts{display:grid;grid-template-columns:minmax(110px,auto) 1fr;gap:6px 16px;margin:0}
dl.facts dt{color:#4f5966}
dl.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}
.chart{margin:0}
.chart svg{display:block;width:100%;height:auto}
.narrow{max-width:420px;margin:24px auto}
.pager{display:flex;gap:12px;align-items:center;margin-top:8px}
.qr{width:160px;height:160px;border:1px solid #dde3ea;border-radius:8px;background:#fff}
details{margin:6px 0}
summary{cursor:pointer;font-weight:600}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;border-radius:8px;padding:8px;font-size:.8rem;margin:6px 0}
.preview{border:1px solid #dde3ea;border-radius:10px;overflow:hidden;background:#f3f5f7}
.preview .p-top{background:#fff;border-top:4px solid var(--brand);border-bottom:1px solid #e1e5ea;padding:10px 14px;display:flex;align-items:center;gap:10px;font-weight:650}
.preview .p-badge{display:grid;place-items:center;width:32px;height:32px;border-radius:8px;background:var(--brand);color:var(--on-brand);font-weight:700}
.preview .p-top img{max-height:32px;max-width:140px}
.preview .p-body{padding:14px}
.preview .p-line{display:flex;justify-content:space-between;border-bottom:1px solid #e9edf1;padding:6px 0}
.preview .p-pay{display:block;width:100%;margin-top:12px;border:0;border-radius:10px;background:var(--brand);color:var(--on-brand);font-weight:700;padding:12px;text-align:center}
footer{color:#4f5966;font-size:.8rem;text-align:center;padding:0 16px 24px}
`
  .trim()
  .replace(/\n/g, "");

export const PORTAL_JS = `(function(){
"use strict";
document.querySelectorAll("[data-copy]").forEach(function(button){
button.hidden=false;
button.addEventListener("click",function(){
var text=button.getAttribute("data-copy")||"";
var done=function(){var label=button.textContent;button.textContent=button.getAttribute("data-copied")||label;setTimeout(function(){button.textContent=label;},1500);};
if(navigator.clipboard)navigator.clipboard.writeText(text).then(done,function(){});
});
});
var add=document.querySelector("[data-add-item]");
var rows=document.querySelector("[data-items]");
if(add&&rows){
add.hidden=false;
add.addEventListener("click",function(){
var list=rows.querySelectorAll("[data-item]");
var last=list[list.length-1];if(!last)return;
var copy=last.cloneNode(true);
copy.querySelectorAll("input").forEach(function(input){input.value="";input.removeAttribute("aria-invalid");});
copy.querySelectorAll(".error").forEach(function(e){e.remove();});
rows.appendChild(copy);
});
rows.addEventListener("click",function(e){
var t=e.target;if(!t||!t.matches||!t.matches("[data-remove-item]"))return;
var list=rows.querySelectorAll("[data-item]");
if(list.length>1)t.closest("[data-item]").remove();
});
}
var total=document.querySelector("[data-total]");
if(total&&rows){
var tform=total.closest("form");
var tlang=total.getAttribute("data-lang")==="is"?"is":"en";
var exps={};try{exps=JSON.parse(total.getAttribute("data-exponents")||"{}");}catch(e){}
var read=function(text,d){
var t=(text||"").split(" ").join("").split(String.fromCharCode(160)).join("");if(t==="")return null;
var g=tlang==="is"?".":",",p=tlang==="is"?",":".";
var frac=d>0?"(?:["+p+"]([0-9]{1,"+d+"}))?":"";
var w=new RegExp("^([0-9]{1,3}(?:["+g+"][0-9]{3})+|[0-9]{1,15})"+frac+"$").exec(t);
if(!w)w=new RegExp("^([0-9]{1,15})"+(d>0?"(?:[.,]([0-9]{1,"+d+"}))?":"")+"$").exec(t);
if(!w)return NaN;
return Number(w[1].split(g).join(""))*Math.pow(10,d)+Number(((w[2]||"")+"0000").slice(0,d)||"0");
};
var sum=function(){
var cur=tform&&tform.querySelector("[name=currency]");
var code=cur?cur.value.trim().toUpperCase():"";
if(!/^[A-Z]{3}$/.test(code))return "\u2014";
var d=code in exps?exps[code]:2,s=0,any=false,g2=tlang==="is"?".":",",p2=tlang==="is"?",":".";
var list=rows.querySelectorAll("[data-item]");
for(var i=0;i<list.length;i++){
var f=function(n){var el=list[i].querySelector("[name="+n+"]");return el?el.value:"";};
var q=f("itemQuantity").trim(),u=read(f("itemUnitPrice"),d),a=read(f("itemAmount"),d);
if(f("itemName").trim()===""&&q===""&&u===null&&a===null)continue;
any=true;
var qn=q===""?1:/^[0-9]{1,9}$/.test(q)?Number(q):NaN;
var line=a!==null?a:qn*(u===null?NaN:u);
if(isNaN(line))return "\u2014";
s+=line;
}
if(!any)return "\u2014";
// Written by hand like the server's formatMoney: a browser may lack Icelandic number data.
var whole=String(Math.floor(s/Math.pow(10,d))).replace(/(?=(?:[0-9]{3})+$)(?!^)/g,g2);
var num=whole+(d>0?p2+String(s%Math.pow(10,d)+Math.pow(10,d)).slice(1):"");
return tlang==="is"?(code==="ISK"?num+" kr.":num+" "+code):code+" "+num;
};
var show=function(){var text=sum();if(total.textContent!==text)total.textContent=text;};
if(tform){tform.addEventListener("input",show);tform.addEventListener("click",function(){setTimeout(show,0);});}
}
var preview=document.querySelector("[data-preview]");
if(preview){
var form=preview.closest("form")||document;
var colour=form.querySelector("[name=primaryColor]");
var name=form.querySelector("[name=name]");
var noColour=form.querySelector("[name=defaultColour]");
var update=function(){
var value=noColour&&noColour.checked?preview.getAttribute("data-default-brand"):colour&&colour.value;
if(value&&/^#[0-9a-fA-F]{6}$/.test(value)){
preview.style.setProperty("--brand",value);
var lum=function(h){return [1,3,5].map(function(i){var v=parseInt(h.slice(i,i+2),16)/255;return v<=0.03928?v/12.92:Math.pow((v+0.055)/1.055,2.4);}).reduce(function(a,v,i){return a+v*[0.2126,0.7152,0.0722][i];},0);};
var l=lum(value),white=1.05/(l+0.05),black=(l+0.05)/0.05;
preview.style.setProperty("--on-brand",white>=4.5||white>=black?"#ffffff":"#111111");
}
var label=preview.querySelector("[data-preview-name]");
if(label&&name)label.textContent=name.value||name.getAttribute("placeholder")||"";
};
if(colour)colour.addEventListener("input",function(){if(noColour)noColour.checked=false;update();});
if(noColour)noColour.addEventListener("change",update);
if(name)name.addEventListener("input",update);
}
})();
`;

const PORTAL_JS_VERSION = createHash("sha256").update(PORTAL_JS).digest("hex").slice(0, 12);
export const PORTAL_JS_PATH = `/portal/assets/portal.js?v=${PORTAL_JS_VERSION}`;
