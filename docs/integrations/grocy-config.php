<?php
// Grocy side (4.5 or later): add to data/config.php, or set the same names prefixed GROCY_ as
// environment variables (e.g. GROCY_LABEL_PRINTER_WEBHOOK). <KEY>: an integration key with
// integrations:print (`labelmaker tokens create --name grocy --scopes integrations:print`).
Setting('FEATURE_FLAG_LABEL_PRINTER', true);
Setting('LABEL_PRINTER_WEBHOOK', 'http://labelmaker:8080/v1/integrations/grocy/<KEY>/brother-ql-62x29');
// true: Grocy's server sends the hook (2 s time-out). false: the browser sends it; then list
// Grocy's origin in Labelmaker's CORS_ALLOW_ORIGINS, serve Labelmaker over https when Grocy is
// (browsers block http requests from an https page), and know that every user's page then
// carries the key. Grocy logs the webhook URL ("Running Webhook") either way: give Grocy a key
// of its own, and revoke and replace it when it leaks.
Setting('LABEL_PRINTER_RUN_SERVER', true);
// JSON (the default since 4.5) or form fields: Labelmaker takes both.
Setting('LABEL_PRINTER_HOOK_JSON', true);
// Extra fields are accepted and ignored.
Setting('LABEL_PRINTER_PARAMS', ['font_family' => 'Source Sans Pro (Regular)']);
// Labelmaker prints the grocycode as a DataMatrix (GROCYCODE_TYPE 2D) unless the webhook URL
// ends in ?code=code128 (GROCYCODE_TYPE 1D: a Code 128 with the grocycode under its bars, on
// stock wide enough for it; else the hook answers 422 and nothing prints). For 1D use instead:
//   Setting('LABEL_PRINTER_WEBHOOK', 'http://labelmaker:8080/v1/integrations/grocy/<KEY>/brother-ql-62x29?code=code128');
//   Setting('GROCYCODE_TYPE', '1D');
Setting('GROCYCODE_TYPE', '2D');
