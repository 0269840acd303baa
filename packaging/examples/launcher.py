#!/usr/bin/env python3
"""A pushgate launcher in Python, with the standard library only (docs/launcher.md).

Three calls on the appliance's control socket: create the run (POST /v1/runs), launch the
command in it (POST /v1/runs/{id}/launch, a stream of JSON lines), tear it down
(DELETE /v1/runs/{id}) however the command ends. Exits with the command's exit code, 125 when
pushgate could not run it.

    launcher.py --data-dir /var/lib/pushgate --repo acme/widget --workdir /srv/agents/a1/work \\
        --rules rules.json -- make test
"""

import argparse
import http.client
import json
import os
import socket
import stat
import sys

FAILED = 125


class UnixConnection(http.client.HTTPConnection):
    """http.client over the control API's Unix socket."""

    def __init__(self, path, timeout=None):
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if self.timeout is not None:
            self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def trusted_socket(data_dir):
    """The control socket, if this user owns it and the directories on the way are safe.

    Another local user must not be able to put a socket of their own there: the data directory
    and the socket are ours, nobody else can write the data directory, and every directory above
    belongs to us or root and is not writable by others (or is sticky, like /tmp).
    """
    me = os.getuid()
    data_dir = os.path.realpath(data_dir)
    st = os.stat(data_dir)
    if st.st_uid != me or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise SystemExit(f"launcher: {data_dir} is not this user's alone; not trusting it")
    parent = os.path.dirname(data_dir)
    while True:
        st = os.stat(parent)
        if st.st_uid not in (0, me) or (
            st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX
        ):
            raise SystemExit(f"launcher: {parent} may be changed by others; not trusting it")
        if parent == "/":
            break
        parent = os.path.dirname(parent)
    path = os.path.join(data_dir, "control.sock")
    st = os.lstat(path)
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != me:
        raise SystemExit(f"launcher: {path} is not this user's socket; is the appliance running?")
    return path


def call(sock, method, path, body=None):
    """One request with a JSON answer: (status, decoded body)."""
    conn = UnixConnection(sock, timeout=120)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=None if body is None else json.dumps(body),
                     headers=headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"null")
    finally:
        conn.close()


def launch(sock, run_id, command):
    """Streams the command's output and events; returns its exit code."""
    conn = UnixConnection(sock)  # no timeout: the command may be quiet for long
    try:
        conn.request("POST", f"/v1/runs/{run_id}/launch", body=json.dumps({"command": command}),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        if resp.status != 200:
            answer = json.loads(resp.read() or b"{}")
            print(f"launcher: not launched ({resp.status}): {answer.get('error')}",
                  file=sys.stderr)
            for way in answer.get("waysOut", []):
                print(f"launcher:   - {way}", file=sys.stderr)
            return FAILED
        for raw in resp:  # one JSON object a line
            if not raw.strip():
                continue
            line = json.loads(raw)
            kind = line.get("type")
            if kind == "stdout":
                sys.stdout.write(line["data"])
                sys.stdout.flush()
            elif kind == "stderr":
                sys.stderr.write(line["data"])
                sys.stderr.flush()
            elif kind == "started":
                print(f"launcher: started pid {line['pid']} under "
                      f"{line.get('sandbox', line['backend'])}", file=sys.stderr)
                for weakening in line.get("weakenings", []):
                    print(f"launcher: weakened: {weakening}", file=sys.stderr)
            elif kind == "event":
                detail = {k: v for k, v in line.items() if k != "type"}
                print(f"launcher: sandbox event: {json.dumps(detail)}", file=sys.stderr)
            elif kind == "exit":
                if line.get("error"):
                    print(f"launcher: {line['error']}", file=sys.stderr)
                return line["code"]
            # "heartbeat" and types a later appliance adds: nothing to do
        print("launcher: the stream ended without an exit code", file=sys.stderr)
        return FAILED
    finally:
        conn.close()  # closing the stream kills the command, if it still runs


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=os.environ.get("PUSHGATE_DATA_DIR", "pushgate-data"))
    p.add_argument("--repo", required=True, help="the run's repository, owner/name")
    p.add_argument("--workdir", required=True, help="the run's working directory")
    p.add_argument("--workspace", default="local")
    p.add_argument("--rules", help="the workspace rules, a JSON file")
    p.add_argument("command", nargs="+", help="the command, after --")
    args = p.parse_args()

    sock = trusted_socket(args.data_dir)
    request = {
        "workspaceId": args.workspace,
        "repository": args.repo,
        "workdir": os.path.realpath(args.workdir),
        "runner": "harness-bash",
        # Only what the agent needs; the appliance keeps an allowlist of it anyway.
        "env": {k: os.environ[k] for k in ("PATH", "LANG", "TERM") if k in os.environ},
    }
    if args.rules:
        with open(args.rules, encoding="utf-8") as f:
            request["rules"] = json.load(f)

    status, run = call(sock, "POST", "/v1/runs", request)
    if status != 201:
        print(f"launcher: the run was not created ({status}): {run.get('error')}",
              file=sys.stderr)
        return FAILED
    run_id = run["runId"]
    print(f"launcher: run {run_id}", file=sys.stderr)
    try:
        return launch(sock, run_id, args.command)
    finally:
        status, ended = call(sock, "DELETE", f"/v1/runs/{run_id}")
        print(f"launcher: run {run_id} torn down ({status}): "
              f"{len(ended.get('revoked', []))} credential(s) revoked", file=sys.stderr)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
