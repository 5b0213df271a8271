package preview

import (
	"bytes"
	"encoding/json"
	"regexp"
)

// reporterJS is the script put first in every HTML page served. It reads its settings from
// the object it is called with, keeps the page's own behaviour (console methods still
// print, errors still reach the page's handlers) and sends at most maxBeacons beacons per
// load, so that a page logging in a loop costs little. A request or form the server's
// policy blocked ([contentPolicy]) is an error that says why, since the page itself only
// sees a failed fetch.
const reporterJS = `(function(c){
var sent=0,max=400;
function send(o){if(sent>=max)return;sent++;o.site=c.site;o.load=c.load;var b=JSON.stringify(o);
try{if(navigator.sendBeacon&&navigator.sendBeacon(c.endpoint,b))return}catch(e){}
try{fetch(c.endpoint,{method:'POST',body:b,mode:'no-cors',keepalive:true})}catch(e){}}
function text(v){if(typeof v==='string')return v;if(v instanceof Error)return String(v.stack||v);try{return JSON.stringify(v)}catch(e){return String(v)}}
window.addEventListener('error',function(e){var t=e.target;
if(t&&t!==window&&t.tagName){var u=t.src||t.href||'';send({kind:'load',message:'Failed to load '+t.tagName.toLowerCase()+' '+u,source:u});return}
send({kind:'error',message:e.message||text(e.error),source:e.filename||'',line:e.lineno||0,column:e.colno||0})},true);
document.addEventListener('securitypolicyviolation',function(e){var d=e.violatedDirective||'';
if(d.indexOf('connect-src')!==0&&d.indexOf('form-action')!==0)return;
send({kind:'error',message:'The preview blocked '+(d.indexOf('form')===0?'a form posted to ':'a request to ')+(e.blockedURI||'an address')+
': a page in the preview may talk only to its own server and to https or wss addresses, not to plain http ones such as the other services of this machine',
source:e.sourceFile||'',line:e.lineNumber||0,column:e.columnNumber||0})});
window.addEventListener('unhandledrejection',function(e){send({kind:'rejection',message:'Unhandled promise rejection: '+text(e.reason)})});
['log','info','warn','error','debug'].forEach(function(k){var o=console[k];if(!o)return;console[k]=function(){
try{send({kind:'console',level:k,message:Array.prototype.map.call(arguments,text).join(' ')})}catch(e){}return o.apply(this,arguments)}});
var timer=0;window.addEventListener('scroll',function(){clearTimeout(timer);timer=setTimeout(function(){send({kind:'scroll',x:window.scrollX,y:window.scrollY})},150)},{passive:true});
window.addEventListener('load',function(){if(c.x||c.y)window.scrollTo(c.x,c.y);
requestAnimationFrame(function(){requestAnimationFrame(function(){send({kind:'painted'})})})});
})(`

// reporterScript is the reporter's <script> element for one load of a site's page.
func reporterScript(endpoint, siteID string, load int, scroll [2]float64) []byte {
	cfg, _ := json.Marshal(map[string]any{"endpoint": endpoint, "site": siteID, "load": load, "x": scroll[0], "y": scroll[1]})
	var b bytes.Buffer
	b.WriteString("<script>")
	b.WriteString(reporterJS)
	b.Write(cfg)
	b.WriteString(");</script>")
	return b.Bytes()
}

var (
	headTag    = regexp.MustCompile(`(?i)<head(\s[^>]*)?>`)
	htmlTag    = regexp.MustCompile(`(?i)<html(\s[^>]*)?>`)
	doctypeTag = regexp.MustCompile(`(?i)^\s*<!doctype[^>]*>`)
)

// reporterAt is where the reporter goes in a page that starts with first: first in its head
// (else after its <html> or doctype, else at its start), before any script of the page.
func reporterAt(first []byte) int {
	for _, re := range []*regexp.Regexp{headTag, htmlTag, doctypeTag} {
		if loc := re.FindIndex(first); loc != nil {
			return loc[1]
		}
	}
	return 0
}
