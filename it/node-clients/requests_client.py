# Python requests through HTTPS_PROXY, trusting the run CA from REQUESTS_CA_BUNDLE.
# Prints one line "requests <op> <status> <number or message>" (ApiClientsTest reads it).
import os
import sys

import requests

op, arg = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
base = "https://api.github.com/repos/acme/widget"
headers = {"Authorization": "token " + os.environ["GH_TOKEN"],
           "Accept": "application/vnd.github+json"}
if op == "read":
    r = requests.get(base, headers=headers, timeout=60)
elif op == "pr":
    r = requests.post(base + "/pulls", headers=headers, timeout=60,
                      json={"head": arg, "base": "main", "title": "Add " + arg,
                            "body": "from requests"})
elif op == "merge":
    r = requests.put(base + "/pulls/" + arg + "/merge", headers=headers, json={}, timeout=60)
else:
    sys.exit("unknown op " + op)
try:
    body = r.json()
except ValueError:
    body = {"message": r.text.strip()}
print("requests", op, r.status_code,
      body.get("number") or body.get("full_name") or body.get("message", ""))
