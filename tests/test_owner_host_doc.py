"""docs/owner-host.md tells the truth: its walkthrough, run command by command, gives the outputs it shows."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trustme
from test_cli import free_port

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "owner-host.md").read_text(encoding="utf-8")
DOC_ROOT, DOC_HOST_PORT, DOC_TELEGRAM_PORT = "/tmp/a2a-owners", "8080", "8081"


def blocks() -> dict[str, str]:
    """The walkthrough's fenced blocks by the name of the marker before each."""
    found = re.findall(r"<!-- walkthrough: ([a-z ]+) -->\n```[a-z]*\n(.*?)```", DOC, re.S)
    return dict(found)


class Walk:
    """The walkthrough's commands with this test's root, ports and Python in place of the doc's."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path.resolve() / "a2a-owners"
        self.host_port, self.telegram_port = str(free_port()), str(free_port())
        self.tmp = tmp_path
        self.processes: list[subprocess.Popen[str]] = []
        self.swaps: dict[str, str] = {}  # the doc's text -> this run's (the key add-caller made)

    def text(self, block: str) -> str:
        text = blocks()[block]
        for doc, here in self.swaps.items():
            text = text.replace(doc, here)
        text = text.replace(DOC_ROOT, str(self.root))
        text = text.replace(f"127.0.0.1:{DOC_TELEGRAM_PORT}", f"127.0.0.1:{self.telegram_port}")
        text = text.replace(f"--port {DOC_TELEGRAM_PORT}", f"--port {self.telegram_port}")
        text = text.replace(f"127.0.0.1:{DOC_HOST_PORT}", f"127.0.0.1:{self.host_port}")
        text = text.replace(f"--port {DOC_HOST_PORT}", f"--port {self.host_port}")
        commands = {".venv/bin/reference-server": f"{sys.executable} -m reference_server",
                    ".venv/bin/python": sys.executable}
        return re.sub(r"\.venv/bin/(?:reference-server|python)", lambda m: commands[m.group(0)], text)

    def run(self, block: str) -> str:
        result = subprocess.run(["bash", "-c", self.text(block)], capture_output=True, text=True, timeout=60,
                                cwd=ROOT)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def start(self, block: str, ready: str) -> Path:
        """The block as a background process whose output goes to a file; waits for `ready` in it."""
        log = self.tmp / f"{block.replace(' ', '-')}.log"
        with log.open("w") as out:
            process = subprocess.Popen(["bash", "-c", "exec " + self.text(block).replace("\\\n", " ")], cwd=ROOT,
                                       stdout=out, stderr=subprocess.STDOUT, text=True,
                                       env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.processes.append(process)
        deadline = time.monotonic() + 20
        while ready not in log.read_text():
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)  # polling the log for start-up, with a deadline
        return log

    def stop(self) -> None:
        for process in self.processes:
            process.send_signal(signal.SIGINT)  # the doc's Ctrl-C
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


@pytest.fixture
def walk(tmp_path: Path) -> Iterator[Walk]:
    walk = Walk(tmp_path)
    yield walk
    walk.stop()


def masked(text: str) -> str:
    """The command's text output with its ages and task ids (which change from run to run) masked."""
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<task>", text)
    return re.sub(r"  \d+[smhd] *  ", "  <age>  ", text)  # the column widens with the age


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_walkthrough_runs_as_written(walk: Walk) -> None:
    shown = {name: walk.text(name) for name in blocks()}
    walk.run("folders")
    chat = walk.start("fake telegram", "fake Telegram Bot API on")
    host = walk.start("host", "Application startup complete")
    assert shown["banner"] in host.read_text()

    assert walk.run("refused").strip() == shown["refused answer"].strip()  # carol is not listed

    answer = json.loads(walk.run("notify"))
    assert answer["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert answer["task"]["artifacts"][0]["parts"][0]["text"] == "I passed your note to my owner (delivered)."
    assert shown["chat"].strip() in chat.read_text()  # the fake printed what alice's chat got

    assert masked(walk.run("command alice")) == masked(shown["command alice output"])
    assert json.loads(walk.run("command bob")) == json.loads(shown["command bob output"])

    added, doc_key = walk.run("add caller"), re.findall(r"^key: (\S+)$", shown["add caller output"], re.M)[0]
    [key] = re.findall(r"^key: ([0-9a-f]{64})$", added, re.M)
    assert added == shown["add caller output"].replace(doc_key, key)
    walk.swaps[doc_key] = key  # the reader puts their key in the doc's place
    assert "error" not in json.loads(walk.run("new caller"))  # the host took the key at once: bob's card
    everyone = masked(walk.run("command all")).replace(f"…{key[-4:]}", f"…{doc_key[-4:]}")
    assert everyone == masked(shown["command all output"])
    assert walk.run("remove caller") == shown["remove caller output"]
    assert walk.run("new caller").strip() == shown["refused answer"].strip()  # refused from the next request
    walk.stop()
    log = host.read_text()
    assert re.search(r"a2a task \S+ owner=alice caller=travel-bot state=completed in ", log)
    assert "fake-token" not in log and "k_alice_travel_7f3a9c" not in log and key not in log


def test_every_notifier_and_new_setting_is_in_the_doc() -> None:
    for words in ("`log` (default)", "`webhook`", "`telegram`", "`none`", "A2A__Webhook__Url",
                  "A2A__Webhook__Token", "A2A__Telegram__BotToken", "A2A__Telegram__ApiUrl", "A2A__Owners",
                  "A2A__OwnersFile", "--owners-file", "A2A__FileChanges=stat", "max_user_watches",
                  "max_queued_events",
                  "A2A__Enabled=false", "--json"):
        assert words in DOC, words


# --- the shards example: two processes behind nginx ---


def shard_commands() -> list[str]:
    found = re.search(r"<!-- not run: two servers that serve until stopped -->\n```sh\n(.*?)```", DOC, re.S)
    assert found, "docs/owner-host.md lost the commands of its shards"
    return [line for line in found.group(1).replace("\\\n", " ").splitlines() if line.strip()]


def nginx_example() -> str:
    found = re.search(r"<!-- nginx: shards -->\n```nginx\n(.*?)```", DOC, re.S)
    assert found, "docs/owner-host.md lost its nginx example"
    return found.group(1)


def test_the_proxy_sends_each_shards_host_name_to_that_shards_process() -> None:
    """Without nginx: the example's upstreams are the ports the shard commands listen on, and its map sends each
    shard's host name (its --public-url) to the upstream of that port."""
    config = nginx_example()
    upstreams = dict(re.findall(r"upstream (\w+) \{ server 127\.0\.0\.1:(\d+);", config))
    routes = dict(re.findall(r"^\s+([\w.-]+\.example\.com) (\w+);$", config, re.M))
    shards = [(re.search(r"--public-url https://(\S+)", c), re.search(r"--port (\d+)", c)) for c in shard_commands()]
    assert len(shards) == 2 and all(url and port for url, port in shards)
    assert {url.group(1): port.group(1) for url, port in shards if url and port} == {
        host: upstreams[upstream] for host, upstream in routes.items()}


class Nginx:
    """The doc's nginx example made runnable here: its certificate paths in a temporary folder (a test CA's), and,
    to serve, its ports on 127.0.0.1."""

    def __init__(self, folder: Path, ca: trustme.CA) -> None:
        self.folder = folder
        certificate = ca.issue_cert("*.a2a.example.com", "a2a.example.com")
        certificate.cert_chain_pems[0].write_to_path(str(folder / "wildcard.a2a.example.com.pem"))
        certificate.private_key_pem.write_to_path(str(folder / "wildcard.a2a.example.com.key"))

    def configure(self, config: str) -> Path:
        (self.folder / "a2a-shards.conf").write_text(config.replace("/etc/ssl/a2a/", f"{self.folder}/"))
        main = self.folder / "nginx.conf"
        temp = "".join(f"{name}_temp_path {self.folder}/{name};\n"
                       for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        main.write_text(f"pid {self.folder}/nginx.pid;\nerror_log {self.folder}/error.log;\nevents {{}}\n"
                        f"http {{\n{temp}access_log off;\ninclude {self.folder}/a2a-shards.conf;\n}}\n")
        return main

    def command(self, main: Path, *more: str) -> list[str]:
        return [shutil.which("nginx") or "nginx", "-p", str(self.folder), "-c", str(main), "-e",
                str(self.folder / "error.log"), *more]


NGINX = pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed (apt-get install nginx)")


@NGINX
def test_the_shards_nginx_example_is_valid_nginx(tmp_path: Path) -> None:
    nginx = Nginx(tmp_path, trustme.CA())
    checked = subprocess.run(nginx.command(nginx.configure(nginx_example()), "-t"), capture_output=True, text=True,
                             timeout=30)
    assert checked.returncode == 0, checked.stderr
    assert "syntax is ok" in checked.stderr and "test is successful" in checked.stderr


def _owner(root: Path, owner: str, key: str) -> None:
    a2a = root / owner / ".volcanic" / "a2a"
    a2a.mkdir(parents=True)
    (a2a / "callers.json").write_text(json.dumps([{"name": "bot", "key": key}]))
    (a2a / "card.json").write_text(json.dumps({"name": f"{owner}'s assistant"}))


@NGINX
def test_the_shards_example_serves_each_owner_from_its_shard(tmp_path: Path) -> None:
    """The example for real, on loopback: two shards as the doc starts them (their ports free ones), nginx with the
    example's configuration; each owner is reached through its shard's host name, and only there."""
    root, ca = tmp_path / "owners", trustme.CA()
    for owner in ("alice", "bob"):
        _owner(root, owner, f"k_{owner}")
    (tmp_path / "shard-1.owners").write_text("alice\n")
    (tmp_path / "shard-2.owners").write_text("bob\n")
    config, processes = nginx_example(), []
    try:
        for command in shard_commands():
            doc_port = re.search(r"--port (\d+)", command).group(1)  # type: ignore[union-attr]
            port = str(free_port())
            config = config.replace(f"127.0.0.1:{doc_port};", f"127.0.0.1:{port};")
            argv = command.replace("/srv/a2a/owners", str(root)).replace("/srv/a2a/", f"{tmp_path}/")
            argv = argv.replace("reference-server", f"{sys.executable} -m reference_server").replace(doc_port, port)
            with (tmp_path / f"shard-{port}.log").open("w") as log:
                processes.append(subprocess.Popen(argv.split(), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT))
        proxy_port = free_port()
        config = config.replace("listen 443 ssl;", f"listen 127.0.0.1:{proxy_port} ssl;")
        nginx = Nginx(tmp_path, ca)
        processes.append(subprocess.Popen(nginx.command(nginx.configure(config), "-g", "daemon off;"),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        trusting = ssl.create_default_context()
        ca.configure_trust(trusting)
        with httpx.Client(verify=trusting, timeout=10) as client:

            def card(shard: str, key: str) -> httpx.Response:
                # the shard's host name, resolved to the proxy on loopback
                host = f"{shard}.a2a.example.com"
                return client.get(f"https://127.0.0.1:{proxy_port}/a2a/v1/extendedAgentCard",
                                  headers={"Host": host, "X-API-Key": key, "A2A-Version": "1.0"},
                                  extensions={"sni_hostname": host})

            deadline = time.monotonic() + 30
            while True:  # until the proxy and both shards answer
                try:
                    if card("s1", "k_alice").status_code == 200 and card("s2", "k_bob").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, (tmp_path / "error.log").read_text()
                time.sleep(0.1)  # polling for start-up, with a deadline
            assert card("s1", "k_alice").json()["name"] == "alice's assistant"
            assert card("s2", "k_bob").json()["name"] == "bob's assistant"
            assert card("s1", "k_bob").status_code == 401  # bob is shard 2's
            assert card("s3", "k_alice").status_code == 421  # no such shard
            public = client.get(f"https://127.0.0.1:{proxy_port}/.well-known/agent-card.json",
                                headers={"Host": "s2.a2a.example.com"},
                                extensions={"sni_hostname": "s2.a2a.example.com"}).json()
            assert {i["url"] for i in public["supportedInterfaces"]} >= {"https://s2.a2a.example.com/a2a"}
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
