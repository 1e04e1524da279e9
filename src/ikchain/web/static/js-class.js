// Marks the page as scripted before it is drawn (no inline script: the
// Content-Security-Policy allows only the server's own files).
document.documentElement.className = "js";
