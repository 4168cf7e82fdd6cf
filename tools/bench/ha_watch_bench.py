#!/usr/bin/env python3
"""ha_watch_bench - etcd requests per second and failover time, 3 brokers, 20 queues

    ha_watch_bench.py DROVER_BINARY LABEL [--set KEY=VALUE ...]

Starts a real etcd and PostgreSQL (tests/etcd_server.sh, tests/pg_server.sh)
in a fresh /tmp directory, three brokers b1..b3 each offering named queues
q01..q20 (ha/strategy leader: all on the leader), waits until the leader's
cells all serve, then:
  * reads etcd's /metrics (grpc_server_started_total, every method) before
    and after 20 s of steady state: the brokers' requests per second;
  * kill -9 the leader: the msec until another broker's elector says
    "elector: leader token=" and until its 20 cells serve; and, from a
    watch of its own on PREFIX/election/, the msec from etcd deleting the
    dead leader's candidacy (its lease expired) to that line: the
    elector's own part of the failover, the rest being the lease's TTL.
Prints one line of figures. Everything it starts it stops.
"""
import base64, os, re, signal, subprocess, sys, tempfile, threading, time, urllib.request

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUEUES = 20
STEADY = 20.0


def metrics_total(url):
    text = urllib.request.urlopen(url + "/metrics", timeout=5).read().decode()
    total = 0.0
    by_method = {}
    for line in text.splitlines():
        if line.startswith("grpc_server_started_total{"):
            value = float(line.rsplit(" ", 1)[1])
            method = re.search(r'grpc_method="([^"]+)"', line).group(1)
            by_method[method] = by_method.get(method, 0) + value
            total += value
    return total, by_method


def count(path, needle):
    try:
        with open(path, errors="replace") as f:
            return sum(1 for line in f if needle in line)
    except FileNotFoundError:
        return 0


def wait_for(predicate, timeout, step=0.005):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


def main():
    drover, label = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    work = tempfile.mkdtemp(prefix="drover-hawatch-")
    os.chmod(work, 0o755)          # PostgreSQL runs as postgres: it must reach its directory
    base = 31000 + (os.getpid() % 50) * 200
    etcd_dir, pg_dir = work + "/etcd", work + "/pg"
    brokers = {}
    logs = {}
    try:
        etcd = subprocess.run(["sh", SRC + "/tests/etcd_server.sh", "start", etcd_dir, str(base),
                               str(base + 1)], capture_output=True, text=True,
                              check=True).stdout.strip()
        pg = subprocess.run(["sh", SRC + "/tests/pg_server.sh", "start", pg_dir, str(base + 2)],
                            capture_output=True, text=True, check=True).stdout.strip()
        for index in range(3):
            name = "b%d" % (index + 1)
            port = base + 10 + index * 60
            queues = ",".join("q%02d=%d" % (q + 1, port + 10 + 2 * q) for q in range(QUEUES))
            logs[name] = "%s/%s.log" % (work, name)
            argv = [drover, "broker", "--endpoint", "tcp://127.0.0.1:%d" % port,
                    "--events", "tcp://127.0.0.1:%d" % (port + 1), "--state", pg,
                    "--etcd", etcd, "--name", name, "--set", "ha/queues=" + queues] + extra
            with open(logs[name], "w") as log:
                brokers[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                                 start_new_session=True)
        # the leader: the broker whose cells all serve
        leader = None
        def served():
            nonlocal leader
            for name in brokers:
                if count(logs[name], ": serving endpoint=") >= QUEUES:
                    leader = name
                    return True
            return False
        if not wait_for(served, 120, 0.1):
            raise SystemExit("no broker served every queue in 120 s: see " + work)
        time.sleep(3.0)     # every standby's cells placed, the first reads done
        before, methods_before = metrics_total(etcd)
        t0 = time.monotonic()
        time.sleep(STEADY)
        after, methods_after = metrics_total(etcd)
        rate = (after - before) / (time.monotonic() - t0)
        per_method = {m: (methods_after.get(m, 0) - methods_before.get(m, 0)) / STEADY
                      for m in methods_after}
        per_method = {m: round(v, 1) for m, v in per_method.items() if v > 0}
        dead = [n for n, p in brokers.items() if p.poll() is not None]
        if dead:
            raise SystemExit("brokers %s exited during the steady state: see %s" % (dead, work))
        # etcd's own word on when the dead leader's candidacy went
        deletes = []
        key = base64.b64encode(b"/drover/election/").decode()
        end = base64.b64encode(b"/drover/election0").decode()
        watcher = subprocess.Popen(["curl", "-sN", "-X", "POST", etcd + "/v3/watch", "-d",
                                    '{"create_request":{"key":"%s","range_end":"%s"}}'
                                    % (key, end)], stdout=subprocess.PIPE, text=True)
        def read_watch():
            for line in watcher.stdout:
                if '"DELETE"' in line:
                    deletes.append(time.monotonic())
        threading.Thread(target=read_watch, daemon=True).start()
        time.sleep(0.5)
        # failover: kill -9 the leader
        others = [n for n in brokers if n != leader]
        leads0 = {n: count(logs[n], "elector: leader token=") for n in others}
        serving0 = {n: count(logs[n], ": serving endpoint=") for n in others}
        killed_at = time.monotonic()
        os.killpg(brokers[leader].pid, signal.SIGKILL)
        brokers[leader].wait()
        del brokers[leader]
        new = []
        wait_for(lambda: new.extend(n for n in others
                                    if count(logs[n], "elector: leader token=") > leads0[n]) or new,
                 30)
        seen_at = time.monotonic()
        detected = (seen_at - killed_at) * 1000
        watcher.terminate()
        reaction = (seen_at - deletes[0]) * 1000 if deletes else float("nan")
        if not new:
            raise SystemExit("no new leader within 30 s: see " + work)
        newname = new[0]
        wait_for(lambda: count(logs[newname], ": serving endpoint=") - serving0[newname] >= 1, 60)
        first_served = (time.monotonic() - killed_at) * 1000
        wait_for(lambda: count(logs[newname], ": serving endpoint=") - serving0[newname]
                 >= QUEUES, 60)
        all_served = (time.monotonic() - killed_at) * 1000
        print("%s: etcd requests/s %.1f %s; failover: new leader %s after %.0f ms (%.0f ms "
              "after etcd deleted the dead one's candidacy), its first queue served after %.0f ms, all %d after %.0f ms"
              % (label, rate, per_method, newname, detected, reaction, first_served, QUEUES,
                 all_served))
    finally:
        for process in brokers.values():
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for process in brokers.values():
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        if os.path.isdir(etcd_dir):
            subprocess.run(["sh", SRC + "/tests/etcd_server.sh", "stop", etcd_dir])
        if os.path.isdir(pg_dir):
            subprocess.run(["sh", SRC + "/tests/pg_server.sh", "stop", pg_dir])
        if os.environ.get("KEEP"):
            print("logs kept in", work)
        else:
            subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
