#!/usr/bin/python3
#   drv1_peer - the oldest peer drover still supports, kept frozen in the tree
#
#   A minimal worker and client of DRV/1 at level 1: PROTOCOL.md exactly as
#   it stood at commit 4fe0aee (2026-11-23), kept beside this file as
#   PROTOCOL-level1.md. Written from that text alone, and strict as it is:
#   a message with the wrong signature or version, an unknown id (above 21),
#   an element count other than 4 + the level-1 field count, an enum value
#   outside its level-1 range, or a record of another size is malformed,
#   logged on stderr as "malformed: ..." and dropped (§4, §12, §13).
#
#   NEVER update this file to a newer spec: it stands for peers already
#   deployed, which a broker must keep serving. Fix only what disagrees with
#   PROTOCOL-level1.md.
#
#   drv1_peer.py selftest
#   drv1_peer.py worker --broker EP --id ID --procs N [--labels k=v,...] [--seconds S]
#   drv1_peer.py submit --broker EP [--procs N] [--priority P] [--label k=v]... [--notify]
#                       -- ARGV...
#   drv1_peer.py wait --broker EP ID...
#   drv1_peer.py cancel --broker EP ID
#   drv1_peer.py tasks --broker EP [--state S] [--limit N]
#   drv1_peer.py workers --broker EP
#
#   Each prints machine-readable lines on stdout and exits 0 on success, 1
#   with the reason on stderr on a refusal or a timeout (--timeout seconds
#   per reply, 10 by default), 2 on bad arguments.

import argparse
import math
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import msgpack
import zmq

MSG_MAX = 4194304               # DROVER_MSG_MAX (§15)
DEPTH_MAX = 4                   # DROVER_DEPTH_MAX
OUTPUT_MAX = 1048576            # DROVER_OUTPUT_MAX, also DROVER_INPUT_MAX
BODY_MAX = 2097152              # DROVER_BODY_MAX
STATES = ["QUEUED", "ASSIGNED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "UNKNOWN"]
HEALTHS = ["OK", "PROBATION", "LOST"]
ADMINS = ["RUN", "HOLD", "DRAIN"]
EXITED, SIGNALLED, TIMEDOUT, CANCELLED, SPAWN_FAILED = range(5)

class Malformed(Exception):
    """What made a message malformed (§13)"""

class Failure(Exception):
    """Why a command failed: its reason goes to stderr, exit status 1"""

#   Raise Malformed(what) unless cond holds
def need(cond, what):
    if not cond:
        raise Malformed(what)

#   ---------------------------------------------------------------------
#   Field types (§4.1): each check takes (value, name), raises Malformed

#   A check that value is of a type in kinds and ok(value) holds
def typed(kinds, ok, what):
    def check(value, name):
        need(type(value) in kinds and ok(value), f"{name} is {repr(value)[:40]}, not {what}")
    return check

#   uintN (any integer encoding, never a bool or a float), in low..high
def uint(bits, low=0, high=None):
    high = (1 << bits) - 1 if high is None else high
    return typed((int,), lambda value: low <= value <= high, f"in {low}..{high}")

#   The bytes of a str as they came on the wire
def raw(value):
    return value.encode("utf-8", "surrogateescape")

#   str(low..high) in bytes, no NUL, all of it matching pattern
def text(low, high, pattern=r"[^\0]*", what=None):
    return typed((str,), lambda value: low <= len(raw(value)) <= high
                 and re.fullmatch(pattern, value, re.S),
                 what or f"str({low}..{high}) without NUL")

#   array(low..high) of item
def array(low, high, item):
    def check(value, name):
        need(type(value) is list and low <= len(value) <= high,
             f"{name} is not an array({low}..{high})")
        for index, element in enumerate(value):
            item(element, f"{name}[{index}]")
    return check

#   [T1, T2, ...]: a record of exactly these elements
def record(*items):
    def check(value, name):
        need(type(value) is list, f"{name} is not a record")
        need(len(value) == len(items), f"{name} is a record of {len(value)}, "
             f"level 1 has {len(items)}")
        for index, (item, element) in enumerate(zip(items, value)):
            item(element, f"{name}[{index}]")
    return check

#   T or nil
def or_nil(item):
    return lambda value, name: value is None or item(value, name)

U8, U16, U32, U64 = uint(8), uint(16), uint(32), uint(64)
I32 = typed((int,), lambda value: -2 ** 31 <= value < 2 ** 31, "an int32")
FLOAT = typed((int, float), lambda value: math.isfinite(value) and value >= 0, "a float >= 0")
ID = text(1, 64, r"[\x21-\x7e]*", "an id")
ID_OPT = text(0, 64, r"[\x21-\x7e]*", "an id or empty")
LABEL = text(3, 128, r"[A-Za-z0-9_.-]{1,63}=[\x20-\x7e]*", "a label")
LABELS = array(0, 16, LABEL)
OUT = typed((bytes,), lambda value: len(value) <= OUTPUT_MAX, f"bin(0..{OUTPUT_MAX})")
BODY = typed((bytes,), lambda value: len(value) <= BODY_MAX, f"bin(0..{BODY_MAX})")
REASON = text(0, 256)
STATS = record(FLOAT, FLOAT, FLOAT, U64, U64, U64, U64, U32)
TASK_ROW = record(U64, uint(8, 0, 6), I32, U32, U32, ID_OPT, text(0, 80))
WORKER_ROW = record(ID, uint(8, 0, 2), uint(8, 0, 2), U32, U32, U64, U64, LABELS, STATS)
LIST_STATE = typed((int,), lambda value: 0 <= value <= 6 or value == 255, "0..6 or 255")

#   The 21 messages of level 1 (§7): id -> (name, [(field, check)...])
MESSAGES = {
    1: ("WORKER HELLO", [("worker", ID), ("epoch", U64), ("procs", U32), ("mem", U64),
                         ("labels", LABELS), ("running", array(0, 4096, record(U64, U32)))]),
    2: ("WORKER HEARTBEAT", [("worker", ID), ("epoch", U64), ("stats", STATS)]),
    3: ("WORKER GOODBYE", [("worker", ID), ("epoch", U64)]),
    4: ("WORKER WELCOME", [("heartbeat", U32)]),
    5: ("WORKER LEAVE", []),
    6: ("TASK OFFER", [("task", U64), ("attempt", uint(32, 1)), ("priority", I32),
                       ("procs", U32), ("mem", U64), ("timeout", U32), ("body", BODY)]),
    7: ("TASK STARTED", [("worker", ID), ("task", U64), ("attempt", U32)]),
    8: ("TASK RESULT", [("worker", ID), ("task", U64), ("attempt", U32),
                        ("outcome", uint(8, 0, 4)), ("exit_code", I32), ("signal", I32),
                        ("truncated", U32), ("duration", U32), ("out", OUT), ("err", OUT),
                        ("reason", REASON)]),
    9: ("TASK KILL", [("task", U64), ("attempt", U32)]),
    10: ("TASK SUBMIT", [("priority", I32), ("procs", U32), ("mem", U64), ("labels", LABELS),
                         ("timeout", U32), ("retries", U32), ("flags", U32), ("body", BODY)]),
    11: ("TASK ACCEPTED", [("task", U64)]),
    12: ("TASK WAIT", [("tasks", array(0, 10000, U64))]),
    13: ("TASK DONE", [("task", U64), ("state", uint(8, 0, 6)), ("attempt", U32),
                       ("worker", ID_OPT), ("exit_code", I32), ("signal", I32),
                       ("truncated", U32), ("duration", U32), ("out", OUT), ("err", OUT),
                       ("reason", REASON)]),
    14: ("TASK CANCEL", [("task", U64)]),
    15: ("TASK LIST", [("limit", U32), ("state", LIST_STATE)]),
    16: ("TASK TABLE", [("counts", array(7, 7, U64)), ("rows", array(0, 10000, TASK_ROW))]),
    17: ("WORKER LIST", []),
    18: ("WORKER TABLE", [("rows", array(0, 10000, WORKER_ROW))]),
    19: ("WORKER ADMIN", [("worker", ID), ("admin", uint(8, 0, 2))]),
    20: ("OK", [("code", uint(16, 200, 299)), ("reason", REASON)]),
    21: ("ERROR", [("code", uint(16, 300, 599)), ("reason", REASON)]),
}
NAMES = {name: msg_id for msg_id, (name, _) in MESSAGES.items()}

class Msg:
    """One decoded message: its id, name, seq, and fields by name"""

    #   Name the fields of a message whose values were checked
    def __init__(self, msg_id, seq, values):
        self.id, self.seq = msg_id, seq
        self.name, fields = MESSAGES[msg_id]
        self.fields = {field: value for (field, _), value in zip(fields, values)}

    #   msg["task"]: a field's value
    def __getitem__(self, field):
        return self.fields[field]

#   The depth of value's deepest container, the message array being 1 (§4.3)
def depth(value):
    if type(value) is dict:
        value = [*value.keys(), *value.values()]
    if type(value) is list:
        return 1 + max((depth(element) for element in value), default=0)
    return 0

#   Check values against the fields of message msg_id, count first
def check_fields(msg_id, values):
    name, fields = MESSAGES[msg_id]
    need(len(values) == len(fields),
         f"{name} ({msg_id}) has {4 + len(values)} elements, level 1 has {4 + len(fields)}")
    for (field, check), value in zip(fields, values):
        check(value, f"{name}.{field}")

#   Decode one frame to a Msg in the order of §13; raises Malformed
def decode(frame):
    need(0 < len(frame) <= MSG_MAX, f"frame of {len(frame)} bytes")
    try:
        top = msgpack.unpackb(frame, raw=False, unicode_errors="surrogateescape",
                              strict_map_key=False)
    except Exception as error:          # truncated, trailing bytes, 0xC1, ...
        raise Malformed(f"not one msgpack value: {type(error).__name__} {error}")
    need(type(top) is list and len(top) >= 2, "not an array of at least 2")
    need(type(top[0]) is str and top[0] == "DRV", f"signature {top[0]!r}, not 'DRV'")
    need(type(top[1]) is int and top[1] == 1, f"version {top[1]!r}, not 1")
    need(depth(top) <= DEPTH_MAX, f"nested {depth(top)} deep, more than {DEPTH_MAX}")
    need(len(top) >= 4, f"{len(top)} elements, no id and seq")
    msg_id, seq = top[2], top[3]
    need(type(msg_id) is int and msg_id in MESSAGES, f"message id {msg_id!r}, not 1..21")
    U32(seq, "seq")
    check_fields(msg_id, top[4:])
    return Msg(msg_id, seq, top[4:])

#   Encode a message of level 1, checking what we send as strictly
def encode(msg_id, seq, *values):
    check_fields(msg_id, list(values))
    return msgpack.packb(["DRV", 1, msg_id, seq, *values], use_bin_type=True)

#   Decode an exec body (§7.22) to [argv, env, cwd, input]; raises Malformed
def decode_body(body):
    try:
        value = msgpack.unpackb(body, raw=False, unicode_errors="surrogateescape")
    except Exception as error:
        raise Malformed(f"exec body: {type(error).__name__} {error}")
    need(depth(value) <= 2, "exec body nested deeper than 2")
    record(array(1, 1024, text(0, 65536)), array(0, 256, text(2, 65536, r"[^\0=]+=[^\0]*")),
           or_nil(text(1, 65536)), or_nil(OUT))(value, "body")
    return value

#   Encode an exec body running argv
def encode_body(argv, env=(), cwd=None, stdin=None):
    return msgpack.packb([list(argv), list(env), cwd, stdin], use_bin_type=True)

#   ---------------------------------------------------------------------
#   One DEALER to the broker, numbering what it sends (§3, §5)

class Peer:
    #   Connect to the broker's ROUTER; timeout: seconds to wait per reply
    def __init__(self, endpoint, timeout):
        self.context = zmq.Context()
        self.sock = self.context.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.MAXMSGSIZE, MSG_MAX)
        self.sock.setsockopt(zmq.RECONNECT_IVL, 100)
        self.sock.setsockopt(zmq.RECONNECT_IVL_MAX, 5000)
        self.sock.setsockopt(zmq.LINGER, 1000)
        self.sock.connect(endpoint)
        self.timeout = timeout
        self.seq = 0

    #   Send a message with the next seq (1.., wrapping to 1); returns the seq
    def send(self, name, *values):
        self.seq = self.seq % 0xFFFFFFFF + 1
        self.sock.send(encode(NAMES[name], self.seq, *values))
        return self.seq

    #   The next well-formed message before deadline (monotonic s), or None;
    #   malformed ones are logged and dropped (§13)
    def recv(self, deadline):
        while True:
            wait = deadline - time.monotonic()
            if wait <= 0 or not self.sock.poll(int(wait * 1000) + 1):
                return None
            frames = self.sock.recv_multipart()
            try:
                need(len(frames) == 1, f"{len(frames)} frames")
                return decode(frames[0])
            except Malformed as error:
                log(f"malformed: {error}")

    #   Send a request and return the reply with its seq; anything else goes
    #   to other, or is dropped (§5); Failure on timeout
    def request(self, name, *values, other=None):
        seq = self.send(name, *values)
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self.recv(deadline)
            if msg is None:
                raise Failure(f"timeout: no reply to {name} (seq {seq}) "
                              f"within {self.timeout:g} s")
            if msg.seq == seq:
                return msg
            if other:
                other(msg)

    #   Close the socket, letting what is queued go for up to a second
    def close(self):
        self.sock.close()
        self.context.term()

#   Write one line to stderr
def log(line):
    print(f"drv1_peer: {line}", file=sys.stderr, flush=True)

#   Write one machine-readable line to stdout
def say(line):
    print(line, flush=True)

#   Return msg if it is a name; Failure for an ERROR (said as `error CODE
#   REASON`) or anything else
def expect(msg, name):
    if msg.name == "ERROR":
        say(f"error {msg['code']} {msg['reason']}")
        raise Failure(f"refused: {msg['code']} {msg['reason']}")
    if msg.name != name:
        raise Failure(f"got {msg.name}, expected {name}")
    return msg

#   ---------------------------------------------------------------------
#   The client (§8.2)

#   submit: TASK SUBMIT of argv; prints accepted ID (with --notify, then the
#   TASK DONE the broker sends with seq 0 when the task ends)
def cmd_submit(args, peer):
    notified = []
    keep = lambda msg: msg.name == "TASK DONE" and msg.seq == 0 and notified.append(msg)
    reply = peer.request("TASK SUBMIT", args.priority, args.procs, 0, args.label, 0, 0,
                         1 if args.notify else 0, encode_body(args.argv), other=keep)
    task = expect(reply, "TASK ACCEPTED")["task"]
    say(f"accepted {task}")
    deadline = time.monotonic() + peer.timeout
    while args.notify and not any(msg["task"] == task for msg in notified):
        msg = peer.recv(deadline)
        if msg is None:
            raise Failure(f"timeout: no notified TASK DONE for {task}")
        keep(msg)
    for msg in notified:
        print_done(msg)

#   Print a TASK DONE as `done ID STATE EXIT_CODE WORKER` and `out ID HEX`
def print_done(msg):
    task = msg["task"]
    say(f"done {task} {STATES[msg['state']]} {msg['exit_code']} {msg['worker'] or '-'}")
    say(f"out {task} {msg['out'].hex() or '-'}")

#   wait: TASK WAIT for the ids; exactly one DONE per task (§10), else failure
def cmd_wait(args, peer):
    tasks = list(dict.fromkeys(args.ids))
    done, extra, replies = {}, [], []

    def on_wait(msg):                   # a DONE, OK or ERROR with the WAIT's seq
        if msg.seq != seq:
            return
        if msg.name != "TASK DONE":
            replies.append(expect(msg, "OK"))
        elif msg["task"] in done or msg["task"] not in tasks:
            extra.append(msg)
        else:
            done[msg["task"]] = msg
    seq = peer.send("TASK WAIT", tasks)
    deadline = time.monotonic() + peer.timeout
    while not replies or len(done) < len(tasks):
        msg = peer.recv(deadline)
        if msg is None:
            raise Failure(f"timeout: {'no OK to TASK WAIT, ' if not replies else ''}"
                          f"no TASK DONE for {[t for t in tasks if t not in done]} "
                          f"within {peer.timeout:g} s")
        on_wait(msg)
    #   A barrier: a DONE sent twice is on the wire before the reply to this
    peer.request("TASK LIST", 1, 255, other=on_wait)
    for task in tasks:
        print_done(done[task])
    if extra or len(replies) > 1:
        raise Failure(f"more than one TASK DONE per task: {[m['task'] for m in extra]}, "
                      f"{len(replies)} replies")

#   cancel: TASK CANCEL; prints ok REASON, or error CODE REASON
def cmd_cancel(args, peer):
    say(f"ok {expect(peer.request('TASK CANCEL', args.id), 'OK')['reason']}")

#   tasks: TASK LIST; prints the counts by state and one line per row
def cmd_tasks(args, peer):
    state = 255 if args.state is None else (
        STATES.index(args.state.upper()) if args.state.upper() in STATES else int(args.state))
    table = expect(peer.request("TASK LIST", args.limit, state), "TASK TABLE")
    say("counts " + " ".join(f"{name}={count}" for name, count in zip(STATES, table["counts"])))
    for task, state, priority, procs, attempt, worker, summary in table["rows"]:
        say(f"task {task} {STATES[state]} {priority} {procs} {attempt} {worker or '-'} {summary}")

#   workers: WORKER LIST; prints one line per row
def cmd_workers(args, peer):
    table = expect(peer.request("WORKER LIST"), "WORKER TABLE")
    for worker, health, admin, procs, used, mem, mem_used, labels, stats in table["rows"]:
        say(f"worker {worker} {HEALTHS[health]} {ADMINS[admin]} {procs} {used} {mem} "
            f"{mem_used} {','.join(labels) or '-'} {stats[7]}")

#   ---------------------------------------------------------------------
#   The worker (§8.1, §9, §10)

class Attempt:
    """One offered attempt, run as a child process by a thread"""

    #   An attempt of a task, not spawned yet
    def __init__(self, task, attempt):
        self.key = (task, attempt)
        self.proc = None                # the child, once spawned
        self.killed = False             # a KILL (or 404/409 to STARTED) stopped it

class Worker:
    """Registers, heartbeats, runs offers, keeps each RESULT until acknowledged"""

    #   A worker of args (broker, id, procs, labels, seconds, workdir)
    def __init__(self, args):
        self.args = args
        self.peer = Peer(args.broker, args.timeout)
        self.epoch = time.time_ns() // 1000     # §6.1: afresh each start
        self.labels = [label for label in args.labels.split(",") if label]
        self.welcomed = False           # registered, as far as we know
        self.hello_seq = None           # the HELLO awaiting WELCOME
        self.hello_at = 0.0             # when to send HELLO (again), monotonic s
        self.backoff = 1.0              # HELLO resend backoff, s (1 doubling to 30)
        self.last_401 = -1.0            # when the last 401 came
        self.beat = 1.0                 # heartbeat interval, s
        self.beat_at = 0.0              # next HEARTBEAT
        self.seqs = {}                  # seq -> (kind, key): what we await replies to
        self.attempts = {}              # key -> Attempt whose process runs
        self.results = {}               # key -> RESULT fields, until OK/409/404
        self.finished = queue.Queue()   # (key, fields) from the attempts' threads
        self.wake_r, self.wake_w = os.pipe()    # threads and SIGTERM wake the loop
        self.stopping = False           # SIGTERM or LEAVE seen

    #   Run until --seconds pass, SIGTERM or LEAVE; then GOODBYE
    def run(self):
        signal.signal(signal.SIGTERM, lambda *_: self.stop())
        end = time.monotonic() + self.args.seconds if self.args.seconds else math.inf
        poller = zmq.Poller()
        poller.register(self.peer.sock, zmq.POLLIN)
        poller.register(self.wake_r, zmq.POLLIN)
        while not self.stopping and time.monotonic() < end:
            until = min(end, self.beat_at if self.welcomed else self.hello_at)
            ready = dict(poller.poll(max(0, int((until - time.monotonic()) * 1000)) + 1))
            if self.wake_r in ready:
                os.read(self.wake_r, 4096)
            while self.peer.sock.poll(0):
                self.on_message(self.peer.recv(time.monotonic() + 0.001))
            while not self.finished.empty():
                self.on_finished(*self.finished.get())
            if not self.welcomed and time.monotonic() >= self.hello_at:
                self.hello()
            if self.welcomed and time.monotonic() >= self.beat_at:
                self.heartbeat()
        self.peer.send("WORKER GOODBYE", self.args.id, self.epoch)
        for attempt in self.attempts.values():
            self.kill(attempt)
        say("goodbye")
        self.peer.close()

    #   Stop at the next turn of the loop (from the SIGTERM handler)
    def stop(self):
        self.stopping = True
        os.write(self.wake_w, b"x")

    #   Send HELLO with the attempts still running; again later, backing off
    def hello(self):
        running = [list(key) for key in self.attempts]
        self.hello_seq = self.peer.send("WORKER HELLO", self.args.id, self.epoch,
                                        self.args.procs, self.memory(), self.labels, running)
        self.hello_at = time.monotonic() + self.backoff
        self.backoff = min(self.backoff * 2, 30.0)

    #   Send a HEARTBEAT with level-1 stats (8 elements)
    def heartbeat(self):
        seq = self.peer.send("WORKER HEARTBEAT", self.args.id, self.epoch, self.stats())
        self.seqs = {s: v for s, v in self.seqs.items() if v[0] != "heartbeat"}
        self.seqs[seq] = ("heartbeat", None)
        self.beat_at = time.monotonic() + self.beat

    #   Memory this machine offers, bytes
    def memory(self):
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")

    #   [load1, load5, load15, mem_used, mem_total, disk_used, disk_total, running]
    def stats(self):
        with open("/proc/meminfo") as meminfo:
            info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in meminfo}
        disk = os.statvfs(self.args.workdir)
        total = disk.f_blocks * disk.f_frsize
        return [*map(float, os.getloadavg()),
                info["MemTotal"] - info.get("MemAvailable", 0), info["MemTotal"],
                total - disk.f_bfree * disk.f_frsize, total, len(self.attempts)]

    #   Handle one message from the broker (None: nothing came)
    def on_message(self, msg):
        if msg is None:
            return
        if msg.name == "WORKER WELCOME" and msg.seq == self.hello_seq:
            self.welcomed, self.backoff = True, 1.0
            self.beat = (msg["heartbeat"] or 1000) / 1000
            self.beat_at = time.monotonic()
            say(f"welcome {msg['heartbeat']}")
            for key in list(self.results):      # unacknowledged results (§9)
                self.send_result(key)
        elif msg.name == "ERROR" and msg["code"] == 401 and msg.seq in self.seqs:
            self.rejoin()
        elif msg.name in ("OK", "ERROR") and msg.seq in self.seqs:
            self.on_reply(msg, *self.seqs[msg.seq])
        elif msg.name == "ERROR" and msg.seq == self.hello_seq:
            log(f"HELLO refused: {msg['code']} {msg['reason']}")
        elif msg.name == "TASK OFFER":
            self.on_offer(msg)
        elif msg.name == "TASK KILL" and (msg["task"], msg["attempt"]) in self.attempts:
            self.kill(self.attempts[(msg["task"], msg["attempt"])])
        elif msg.name == "WORKER LEAVE":
            say("leave")
            self.stopping = True
        elif msg.name != "OK":                  # an OK we did not wait for is ignored
            log(f"dropped {msg.name} seq {msg.seq}")

    #   401: the broker forgot us; HELLO again at once, or backing off when
    #   401s come more than once a second (§9)
    def rejoin(self):
        now = time.monotonic()
        if now - self.last_401 >= 1.0:
            self.backoff, self.hello_at = 1.0, now
        self.last_401 = now
        self.welcomed = False
        say("rejoin")

    #   An OK or ERROR to our STARTED or RESULT
    def on_reply(self, msg, kind, key):
        code = msg["code"]
        if kind == "result" and (msg.name == "OK" or code in (404, 409)):
            del self.seqs[msg.seq]
            if self.results.pop(key, None) is not None:
                say(f"acked {key[0]} {key[1]} {code}")
        elif kind == "started" and code in (404, 409) and key in self.attempts:
            self.kill(self.attempts[key])
        elif msg.name == "ERROR":
            log(f"{kind} {key} refused: {code} {msg['reason']}")

    #   TASK OFFER: STARTED, then run the exec body in a child process
    def on_offer(self, msg):
        key = (msg["task"], msg["attempt"])
        if not self.welcomed:
            log(f"dropped TASK OFFER {key[0]} {key[1]}: no WELCOME yet")
            return
        if key in self.attempts or key in self.results:
            return                              # a repeat of an offer we have
        say(f"offer {key[0]} {key[1]}")
        self.seqs[self.peer.send("TASK STARTED", self.args.id, *key)] = ("started", key)
        attempt = self.attempts[key] = Attempt(*key)
        timeout = msg["timeout"] / 1000 if msg["timeout"] else None
        threading.Thread(target=self.execute, args=(attempt, msg["body"], timeout),
                         daemon=True).start()

    #   In a thread: run one attempt, queue its RESULT fields, wake the loop
    def execute(self, attempt, body, timeout):
        start = time.monotonic()
        outcome, code, sig, out, err, reason = SPAWN_FAILED, 0, 0, b"", b"", ""
        try:
            argv, env, cwd, stdin = decode_body(body)
            environ = dict(os.environ, **dict(entry.split("=", 1) for entry in env))
            attempt.proc = subprocess.Popen(
                argv, env=environ, cwd=cwd or self.args.workdir, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            if attempt.killed:
                self.kill(attempt)
            try:
                out, err = attempt.proc.communicate(stdin or b"", timeout=timeout)
                outcome = CANCELLED if attempt.killed else EXITED
            except subprocess.TimeoutExpired:
                self.kill(attempt)
                out, err = attempt.proc.communicate()
                outcome, reason = TIMEDOUT, "timed out"
            status = attempt.proc.returncode
            if status < 0:
                sig, outcome = -status, SIGNALLED if outcome == EXITED else outcome
            else:
                code = status
        except (Malformed, OSError, ValueError) as error:
            reason = str(error)[:256]
        truncated = (len(out) > OUTPUT_MAX) | (len(err) > OUTPUT_MAX) << 1
        duration = int((time.monotonic() - start) * 1000)
        self.finished.put((attempt.key, [outcome, code, sig, truncated, duration,
                                         out[:OUTPUT_MAX], err[:OUTPUT_MAX], reason]))
        os.write(self.wake_w, b"x")

    #   Stop an attempt's process group: SIGTERM, SIGKILL 2 s later (§7.9)
    def kill(self, attempt):
        attempt.killed = True
        proc = attempt.proc
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        timer = threading.Timer(2.0, lambda: proc.poll() is None and
                                os.killpg(proc.pid, signal.SIGKILL))
        timer.daemon = True
        timer.start()

    #   An attempt ended: keep its RESULT until acknowledged, and send it
    def on_finished(self, key, fields):
        self.attempts.pop(key, None)
        self.seqs = {s: v for s, v in self.seqs.items() if v != ("started", key)}
        self.results[key] = fields
        say(f"result {key[0]} {key[1]} {fields[1] if fields[0] == EXITED else -1}")
        if self.welcomed:
            self.send_result(key)

    #   Send (or send again) the kept RESULT of an attempt
    def send_result(self, key):
        self.seqs = {s: v for s, v in self.seqs.items() if v != ("result", key)}
        seq = self.peer.send("TASK RESULT", self.args.id, *key, *self.results[key])
        self.seqs[seq] = ("result", key)

#   ---------------------------------------------------------------------
#   selftest: the codec against level-1 messages built by hand

#   A frame of version 1 with these elements after the version
def frame(*elements):
    return msgpack.packb(["DRV", 1, *elements], use_bin_type=True)

#   selftest: decode what a level-1 broker sends; refuse what level 1 does not know
def cmd_selftest(args, peer):
    stats = [0.5, 0.25, 0.0, 1, 2, 3, 4, 1]
    row = ["w1", 0, 1, 4, 2, 1 << 30, 1 << 20, ["gpu=a100"], stats]
    task_row = [5, 2, -1, 1, 1, "w1", "sh -c echo hi"]
    done = [5, 3, 1, "w1", 0, 0, 0, 12, b"hi\n", b"", ""]
    offer = [5, 1, 0, 1, 0, 0, encode_body(["sh", "-c", "echo hi"], ["A=b"])]
    good = {
        "WELCOME": frame(4, 7, 1000), "LEAVE": frame(5, 0), "OFFER": frame(6, 0, *offer),
        "KILL": frame(9, 0, 5, 1), "ACCEPTED": frame(11, 3, 5), "DONE": frame(13, 4, *done),
        "DONE UNKNOWN": frame(13, 4, 99, 6, 0, "", 0, 0, 0, 0, b"", b"", ""),
        "TASK TABLE": frame(16, 5, [1, 0, 2, 3, 0, 0, 0], [task_row]),
        "WORKER TABLE": frame(18, 6, [row, row]), "OK": frame(20, 8, 200, "cancelled"),
        "ERROR": frame(21, 9, 404, "unknown task"),
        "ERROR of §4.2": bytes.fromhex("96a3445256011508cd0194ac756e6b6e6f776e207461736b"),
        "TASK LIST of §4.2": bytes.fromhex("96a3445256010f0764ccff"),
        "int encodings": bytes.fromhex("95a344525601d30000000000000004d200000007cd03e8"),
        "float 32 stats": frame(2, 1, "w1", 7, stats).replace(
            bytes.fromhex("cb3fe0000000000000"), bytes.fromhex("ca3f000000")),
    }
    bad = {
        "WELCOME of 6": (frame(4, 7, 1000, "abc"), "has 6 elements, level 1 has 5"),
        "DONE of 16": (frame(13, 4, 5, 3, 1, *done[2:]), "has 16 elements, level 1 has 15"),
        "ACCEPTED of 6": (frame(11, 3, 5, "abc"), "has 6 elements, level 1 has 5"),
        "task row of 8": (frame(16, 5, [0] * 7, [task_row + [0]]), "record of 8, level 1 has 7"),
        "worker row of 10": (frame(18, 6, [row + [0]]), "record of 10, level 1 has 9"),
        "stats of 9": (frame(18, 6, [row[:8] + [stats + [0]]]), "record of 9, level 1 has 8"),
        "counts of 8": (frame(16, 5, [0] * 8, []), "not an array(7..7)"),
        "health 3": (frame(18, 6, [[row[0], 3] + row[2:]]), "not in 0..2"),
        "state 7": (frame(13, 4, 5, 7, *done[2:]), "not in 0..6"),
        "outcome 5": (frame(8, 1, "w1", 5, 1, 5, 0, 0, 0, 0, b"", b"", ""), "not in 0..4"),
        "id 22": (frame(22, 1, 0, 10, False), "message id 22"),
        "id 0": (frame(0, 1), "message id 0"),
        "version 2": (msgpack.packb(["DRV", 2, 4, 1, 1000]), "version 2"),
        "signature": (msgpack.packb(["DRX", 1, 4, 1, 1000]), "signature"),
        "signature bin": (msgpack.packb([b"DRV", 1, 4, 1, 1000], use_bin_type=True), "signature"),
        "trailing": (frame(4, 7, 1000) + b"\x00", "not one msgpack value"),
        "truncated": (frame(4, 7, 1000)[:-1], "not one msgpack value"),
        "0xC1": (b"\x95" + frame(4, 7)[1:] + b"\xc1", "not one msgpack value"),
        "empty": (b"", "frame of 0"),
        "map": (frame(4, 7, {"a": 1}), "not in 0..4294967295"),
        "bool": (frame(11, 3, True), "True"),
        "float as int": (frame(11, 3, 5.0), "5.0"),
        "NUL": (frame(21, 9, 404, "a\0b"), "without NUL"),
        "ext": (frame(11, 3, msgpack.ExtType(1, b"x")), "ExtType"),
        "depth 5": (frame(18, 6, [row[:7] + [[["x=y"]]] + row[8:]]), "nested 5 deep"),
        "OK with 404": (frame(20, 8, 404, ""), "not in 200..299"),
        "ERROR with 200": (frame(21, 8, 200, ""), "not in 300..599"),
        "attempt 0": (frame(6, 0, 5, 0, *offer[2:]), "not in 1..4294967295"),
        "bad label": (frame(18, 6, [row[:7] + [["gpu a100"]] + row[8:]]), "not a label"),
        "bad worker id": (frame(13, 4, 5, 3, 1, "w 1", *done[4:]), "not an id"),
        "seq too big": (frame(4, 1 << 32, 1000), "seq"),
        "negative uint": (frame(4, 7, -1), "not in 0..4294967295"),
        "bad body": (encode_body([]), "body[0] is not an array(1..1024)"),
        "body of 3": (msgpack.packb([["x"], [], None]), "record of 3, level 1 has 4"),
        "env without =": (encode_body(["x"], ["=b"]), "body[1][0]"),
    }
    for name, data in good.items():
        msg = decode(data)
        say(f"accepted {name}: {msg.name} seq {msg.seq}")
    for name, (data, why) in bad.items():
        try:
            decode_body(data) if "body" in name or "env" in name else decode(data)
        except Malformed as error:
            if why not in str(error):
                raise Failure(f"{name} refused for another reason: {error}")
            say(f"refused {name}: {error}")
            continue
        raise Failure(f"{name} was accepted")
    if encode(15, 7, 100, 255) != good["TASK LIST of §4.2"]:
        raise Failure("TASK LIST does not encode as §4.2 shows")
    if decode_body(offer[6]) != [["sh", "-c", "echo hi"], ["A=b"], None, None]:
        raise Failure("the exec body does not decode as it was encoded")
    say(f"selftest ok accepted={len(good)} refused={len(bad)}")

#   ---------------------------------------------------------------------
#   Command line

#   Parse the command line and run one command; returns the exit status
def main():
    parser = argparse.ArgumentParser(prog="drv1_peer.py", description="a frozen DRV/1 level-1 peer")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("selftest")
    worker = commands.add_parser("worker")
    worker.add_argument("--id", required=True)
    worker.add_argument("--procs", type=int, required=True)
    worker.add_argument("--labels", default="")
    worker.add_argument("--seconds", type=float, default=0)
    worker.add_argument("--workdir", default=os.getcwd())
    submit = commands.add_parser("submit")
    submit.add_argument("--procs", type=int, default=1)
    submit.add_argument("--priority", type=int, default=0)
    submit.add_argument("--label", action="append", default=[])
    submit.add_argument("--notify", action="store_true")
    submit.add_argument("argv", nargs="+")
    commands.add_parser("wait").add_argument("ids", type=int, nargs="+")
    commands.add_parser("cancel").add_argument("id", type=int)
    tasks = commands.add_parser("tasks")
    tasks.add_argument("--state")
    tasks.add_argument("--limit", type=int, default=10000)
    commands.add_parser("workers")
    for name, command in commands.choices.items():
        if name != "selftest":
            command.add_argument("--broker", required=True)
            command.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    run = {"selftest": cmd_selftest, "submit": cmd_submit, "wait": cmd_wait,
           "cancel": cmd_cancel, "tasks": cmd_tasks, "workers": cmd_workers}
    peer = None
    try:
        if args.command == "worker":
            Worker(args).run()
        else:
            peer = None if args.command == "selftest" else Peer(args.broker, args.timeout)
            run[args.command](args, peer)
        return 0
    except (Failure, Malformed) as error:
        log(f"{args.command} failed: {error}")
        return 1
    finally:
        if peer:
            peer.close()

if __name__ == "__main__":
    sys.exit(main())
