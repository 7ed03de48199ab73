#!/usr/bin/env python3
"""A scripted LLM endpoint for the llm driver's tests, on 127.0.0.1 only.

    fake_llm_server.py SCRIPT.json PORT_FILE LOG_DIR

Serves POST /v1/messages (Anthropic Messages) and POST /v1/chat/completions (OpenAI chat), and
answers in the shape of the path it was called on. Which script queue a request takes from is
the name of the schema it asks for (the tool's name, or response_format.json_schema.name):
SCRIPT is {"asmevo_plan": [STEP...], "asmevo_edit": [STEP...]}. Each STEP is one of
    {"payload": OBJECT}             a 200 reply whose structured object is OBJECT
    {"text": STRING}                a 200 reply with this text and no object
    {"refusal": STRING}             a 200 refusal
    {"status": N, "headers": {...}} an error status (429 with retry-after, 500, ...)
    {"delay": SECONDS, ...}         wait that long first (past the client's timeout)
    {"truncate": true, ...}         send a Content-Length larger than the body, then close
    {"match": TEXT, ...}            taken only by a request whose prompt holds TEXT (the first
                                    entry of the queue that matches is taken; concurrent requests
                                    arrive in any order)
    {"usage": [IN, OUT], ...}       report these token counts (any JSON value; "absent" leaves
                                    the field out); {"usage": null} sends no usage object
                                    (default: the request's bytes / 4 in, 50 out)
    {"raw": STRING}                 a 200 reply whose body is STRING's code points as bytes
                                    (latin-1: "\u00ff" is the byte 0xFF), whatever it is
    {"bytes": {MARK: STRING}, ...}  the reply as usual, with each MARK in its body replaced by
                                    STRING's code points as bytes (invalid UTF-8 inside a string)
    {"bom": true, ...}              the reply as usual, after a UTF-8 byte-order mark
    {"endless": true}               a 200 reply, chunked, of JSON white space without end (until
                                    the client hangs up; at most 1 GiB)
    {"huge": N}                     a 200 reply announcing a Content-Length of N bytes, then
                                    sending white space until the client hangs up
An exhausted queue answers with SCRIPT's "<name>_then" step when there is one, else
asmevo_plan with {"steps": [], "done": true} and asmevo_edit with a refusal. Every request is logged as LOG_DIR/NNN.json (time, path, headers, body, the step it
got). The port it bound is written to PORT_FILE when it is ready.
"""
import http.server
import json
import os
import sys
import threading
import time

script_path, port_file, log_dir = sys.argv[1:4]
script = json.load(open(script_path))
os.makedirs(log_dir, exist_ok=True)
lock = threading.Lock()
count = [0]


def usage_of(step, usage, names):
    """The usage object for a reply (None: none), as step's "usage" says."""
    if "usage" not in step:
        return dict(zip(names, usage))
    if step["usage"] is None:
        return None
    return {k: v for k, v in zip(names, step["usage"]) if v != "absent"}


def reply_body(path, step, usage):
    anthropic = path == "/v1/messages"
    body = reply_object(anthropic, step, usage)
    u = usage_of(step, usage, ("input_tokens", "output_tokens") if anthropic
                 else ("prompt_tokens", "completion_tokens"))
    if u is None:
        body.pop("usage", None)
    else:
        body["usage"] = u
    return body


def reply_object(anthropic, step, usage):
    if "payload" in step:
        obj = step["payload"]
        if anthropic:
            return {"id": "msg_test", "type": "message", "role": "assistant", "model": "test",
                    "stop_reason": "tool_use",
                    "content": [{"type": "tool_use", "id": "toolu_1", "name": "x", "input": obj}],
                    "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}
        return {"id": "chatcmpl-test", "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": json.dumps(obj)}}],
                "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}
    if "refusal" in step:
        if anthropic:
            return {"type": "message", "stop_reason": "refusal",
                    "content": [{"type": "text", "text": step["refusal"]}],
                    "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}
        return {"choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": None,
                                         "refusal": step["refusal"]}}],
                "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}
    text = step.get("text", "")
    if anthropic:
        return {"type": "message", "stop_reason": "end_turn",
                "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}
    return {"choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        name = None
        if isinstance(body, dict):
            if body.get("tools"):
                name = body["tools"][0].get("name")
            elif body.get("response_format"):
                name = body["response_format"].get("json_schema", {}).get("name")
        with lock:
            count[0] += 1
            n = count[0]
            queue = script.get(name, [])
            prompt = "".join(m.get("content") or "" for m in body.get("messages", [])
                             if isinstance(m, dict)) if isinstance(body, dict) else ""
            pick = next((i for i, e in enumerate(queue) if e.get("match", "") in prompt), None)
            if pick is not None:
                step = queue.pop(pick)
            elif name and name + "_then" in script:
                step = script[name + "_then"]
            elif name == "asmevo_plan":
                step = {"payload": {"steps": [], "done": True}}
            else:
                step = {"refusal": "nothing scripted"}
        json.dump({"n": n, "time": time.time(), "path": self.path,
                   "headers": {k.lower(): v for k, v in self.headers.items()},
                   "body": body, "step": step},
                  open(os.path.join(log_dir, "%03d.json" % n), "w"), indent=1)
        if step.get("delay"):
            time.sleep(step["delay"])
        if self.path not in ("/v1/messages", "/v1/chat/completions"):
            return self.send(404, {"error": "no such path " + self.path}, {})
        status = step.get("status", 200)
        if status != 200:
            return self.send(status, {"error": {"type": "scripted", "message": "status %d" % status}},
                             step.get("headers", {}), step.get("truncate"))
        usage = (len(raw) // 4, 50)
        if "raw" in step:
            return self.send(200, None, {}, data=step["raw"].encode("latin-1"))
        if step.get("endless") or "huge" in step:
            return self.send(200, None, {}, stream=step.get("huge"))
        data = json.dumps(reply_body(self.path, step, usage)).encode()
        for mark, text in step.get("bytes", {}).items():
            data = data.replace(mark.encode(), text.encode("latin-1"))
        if step.get("bom"):
            data = b"\xef\xbb\xbf" + data
        return self.send(200, None, {}, step.get("truncate"), data=data)

    def send(self, status, obj, headers, truncate=False, data=None, stream=None):
        try:
            if data is None and obj is None:
                return self.stream(stream)
            self.reply(status, obj, headers, truncate, data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (a scripted delay past its timeout, a size limit)

    def stream(self, length):
        """White space without end: chunked, or after a Content-Length of length bytes."""
        self.send_response(200)
        self.send_header("content-type", "application/json")
        if length is None:
            self.send_header("transfer-encoding", "chunked")
        else:
            self.send_header("content-length", str(length))
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        block = b" " * 65536
        for _ in range(16384):  # 1 GiB at most
            if length is None:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
            else:
                self.wfile.write(block)
            self.wfile.flush()

    def reply(self, status, obj, headers, truncate, data=None):
        if data is None:
            data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        for k, v in headers.items():
            self.send_header(k, str(v))
        if truncate:
            self.send_header("content-length", str(len(data) + 100))
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
