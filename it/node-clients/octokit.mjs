// Octokit as its documentation says to put it behind a proxy: undici's ProxyAgent on HTTPS_PROXY.
// Prints one line "octokit <op> <status> <number or message>" (ApiClientsTest reads it).
import { Octokit } from "@octokit/rest";
import { ProxyAgent, fetch as undiciFetch } from "undici";

const agent = new ProxyAgent(process.env.HTTPS_PROXY);
const octokit = new Octokit({
  auth: process.env.GH_TOKEN,
  request: { fetch: (url, options) => undiciFetch(url, { ...options, dispatcher: agent }) },
});
const [op, arg] = process.argv.slice(2);
const repo = { owner: "acme", repo: "widget" };
try {
  let r;
  if (op === "read") {
    r = await octokit.rest.repos.get(repo);
  } else if (op === "pr") {
    r = await octokit.rest.pulls.create({ ...repo, head: arg, base: "main", title: "Add " + arg,
      body: "from octokit" });
  } else if (op === "merge") {
    r = await octokit.rest.pulls.merge({ ...repo, pull_number: Number(arg) });
  } else {
    throw new Error("unknown op " + op);
  }
  console.log(`octokit ${op} ${r.status} ${r.data.number ?? r.data.full_name ?? ""}`);
} catch (e) {
  console.log(`octokit ${op} ${e.status} ${e.response?.data?.message ?? e.message}`);
}
