#!/usr/bin/env python3
"""Drives recorderd's web page in a real headless Chromium (selenium + chromedriver) and with raw
HTTP requests, and prints what it found as one JSON line for the Swift tests to judge.

  check_web.py browse   BASE TASK DOWNLOADS SHOTS   devices' live plot, a task run from its screen,
                                                    the runs pages, plot, downloads, error pages
  check_web.py security BASE TOKEN OTHER_PORT       token, CSRF, cross-site POST and WebSocket, path tricks
  check_web.py live     BASE READYFILE SECONDS      a live plot left open while its device goes: what it says
  check_web.py abandon  BASE TASK                   a task screen closed mid-task, the run cancelled from Tasks
  check_web.py participant BASE TASK SENSOR_HEIGHT  a gait task's screen: a height out of range refused, then
                                                    the task walked with the sensor height entered

Every wait has a deadline; the browser is always quit."""
import http.client
import http.server
import json
import os
import socketserver
import sys
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

PHONE = (412, 915)
LAPTOP = (1366, 900)


def browser(downloads=None):
    options = Options()
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=%d,%d" % LAPTOP]:
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(15)
    if downloads:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver


def until(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise TimeoutError("timed out waiting for " + what)


def request(base, method, path, headers=None, body=None):
    """One raw HTTP request (no client-side path normalisation): status, headers, body text."""
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=15)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            connection.putheader(k, v)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body.encode() if body is not None else None)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read(1 << 20).decode("utf-8", "replace")
    finally:
        connection.close()


def websocket_status(base, path, headers):
    """The status of a WebSocket upgrade request (101 when accepted)."""
    h = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    h.update(headers)
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=15)
    try:
        connection.putrequest("GET", path, skip_accept_encoding=True)
        for k, v in h.items():
            connection.putheader(k, v)
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


def wait_for_server(base):
    def up():
        try:
            return request(base, "GET", "/favicon.ico")[0] in (204, 302, 401)
        except OSError:
            return False
    until(up, 20, "the web page at " + base)


def shot(driver, folder, name, size):
    if not folder:
        return
    driver.set_window_size(*size)
    time.sleep(0.3)  # lets the layout settle at the new size before the picture (not a synchronisation)
    driver.save_screenshot(os.path.join(folder, name + ".png"))


def severe_logs(driver):
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]]


def live_plot(driver):
    canvas = driver.find_element(By.CSS_SELECTOR, "canvas.live")
    def sample():
        return int(canvas.get_attribute("data-drawn") or 0), float(canvas.get_attribute("data-last-t") or "-inf")
    first = until(lambda: sample()[0] > 0 and sample(), 15, "the first drawn points")
    second = until(lambda: sample()[1] > first[1] + 1.0 and sample(), 15, "the plot to move on by a second")
    status = driver.find_element(By.CSS_SELECTOR, '[data-role="live-status"]').text
    return {"first": first, "second": second, "status": status}


def walk_task(driver, base, task, shots, prepare=None):
    driver.get(base + "/tasks/" + task)
    if prepare:
        prepare()
    driver.find_element(By.ID, "start").click()
    seen, answered = [], []
    screen = driver.find_element(By.ID, "task-screen")
    deadline = time.monotonic() + 120
    def note():
        step = screen.get_attribute("data-step")
        if step and (not seen or seen[-1] != step):
            seen.append(step)
        return step
    while time.monotonic() < deadline:
        step = note()
        if driver.find_element(By.ID, "outcome").is_displayed():
            break
        question = driver.find_element(By.ID, "question")
        if question.is_displayed():
            fields = question.find_elements(By.ID, "answer")
            if fields and fields[0].is_enabled():
                step = note()
                shot(driver, shots, "task-question-phone", PHONE)
                fields[0].send_keys("4")
                question.find_element(By.ID, "answer-ok").click()
                answered.append(step)
            time.sleep(0.1)
            continue
        timer = driver.find_element(By.ID, "timer")
        if step and step.startswith("walking.outbound") and timer.is_displayed() and shots and not os.path.exists(os.path.join(shots, "task-active-phone.png")):
            shot(driver, shots, "task-active-phone", PHONE)
        button = driver.find_element(By.ID, "next")
        if button.is_displayed():
            note()  # the step the button belongs to, before it goes
            button.click()
        time.sleep(0.1)
    outcome = driver.find_element(By.ID, "outcome").text
    summaries = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#summaries li")]
    shot(driver, shots, "task-done-phone", PHONE)
    return {"steps": seen, "answered": answered, "outcome": outcome, "run": screen.get_attribute("data-run"), "summaries": summaries}


def browse(base, task, downloads, shots):
    wait_for_server(base)
    found = {}
    driver = browser(downloads)
    try:
        driver.set_window_size(*PHONE)
        driver.get(base + "/devices")
        found["live"] = live_plot(driver)
        # Fused types on demand: the gravity toggle adds its panel.
        driver.find_element(By.CSS_SELECTOR, 'button[data-type="gravity"]').click()
        canvas = driver.find_element(By.CSS_SELECTOR, "canvas.live")
        found["toggled"] = until(lambda: "gravity" in (canvas.get_attribute("data-series") or "") and canvas.get_attribute("data-series"), 15, "the gravity panel")
        found["unknownDevice"] = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const s = new WebSocket(location.origin.replace("http", "ws") + "/ws/live/nosuch");
            s.onmessage = (e) => done(JSON.parse(e.data).message);
            s.onclose = () => done("closed without a message");""")
        shot(driver, shots, "devices-phone", PHONE)
        shot(driver, shots, "devices-laptop", LAPTOP)
        driver.get(base + "/tasks")
        found["tasks"] = [li.get_attribute("data-task") for li in driver.find_elements(By.CSS_SELECTOR, "ul.tasks li")]
        found["brokenTasks"] = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "ul.tasks li.error")]
        shot(driver, shots, "tasks-phone", PHONE)
        driver.set_window_size(*PHONE)
        found["run"] = walk_task(driver, base, task, shots)
        run = found["run"]["run"]
        driver.set_window_size(*LAPTOP)
        driver.get(base + "/runs")
        found["listed"] = [tr.get_attribute("data-run") for tr in driver.find_elements(By.CSS_SELECTOR, "tr[data-run]")]
        shot(driver, shots, "runs-laptop", LAPTOP)
        shot(driver, shots, "runs-phone", PHONE)
        driver.set_window_size(*LAPTOP)
        driver.get(base + "/runs/" + run)
        image = driver.find_element(By.ID, "plot")
        found["plotWidth"] = until(lambda: driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image), 60, "the plot image")
        found["runStatus"] = driver.find_element(By.ID, "run-status").text
        shot(driver, shots, "run-laptop", LAPTOP)
        shot(driver, shots, "run-phone", PHONE)
        driver.set_window_size(*LAPTOP)
        for fmt in ["mcap", "fhir"]:
            driver.find_element(By.CSS_SELECTOR, 'a[data-format="%s"]' % fmt).click()
        def downloaded():
            names = os.listdir(downloads)
            done = [n for n in names if not n.endswith(".crdownload")]
            return len(done) >= 2 and not any(n.endswith(".crdownload") for n in names) and sorted(done)
        found["downloads"] = until(downloaded, 60, "the downloads")
        found["consoleErrors"] = severe_logs(driver)
        errors = {}
        for path in ["/runs/ffffffff", "/runs/..%2F..%2Fetc%2Fpasswd", "/tasks/broken", "/tasks/nope", "/runs/" + run + "/export/pdf"]:
            driver.get(base + path)
            errors[path] = driver.find_element(By.ID, "error-message").text
        found["errorPages"] = errors
        shot(driver, shots, "error-phone", PHONE)
        found["statuses"] = {p: request(base, "GET", p, {"Accept": "text/html"})[0] for p in errors}
    finally:
        driver.quit()
    print(json.dumps(found))


class CrossSite(http.server.BaseHTTPRequestHandler):
    """Another origin: a page that posts a form to recorderd and opens a WebSocket to it."""
    target = ""

    def do_GET(self):
        ws = self.target.replace("http://", "ws://")
        page = f"""<!DOCTYPE html><html><body>
<form id="f" method="post" action="{self.target}/api/tasks/gait-short/sessions"><input name="x" value="1"></form>
<p id="ws">pending</p>
<script>
const s = new WebSocket("{ws}/ws/live/imu0");
s.onopen = () => document.getElementById("ws").textContent = "open";
s.onerror = () => document.getElementById("ws").textContent = "refused";
</script></body></html>"""
        body = page.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def security(base, token, other_port):
    wait_for_server(base)
    host = urllib.parse.urlsplit(base).netloc
    same = {"Origin": base}
    evil = {"Origin": "http://evil.example"}
    html = {"Accept": "text/html"}
    found = {"anonymous": {}, "wrongToken": {}, "withToken": {}, "paths": {}}
    # Without a token (and with a wrong one): pages go to the login form, everything else is refused.
    for label, extra in [("anonymous", {}), ("wrongToken", {"Cookie": "recorderd_token=not-the-token-at-all"})]:
        r = found[label]
        for path in ["/devices", "/tasks", "/runs", "/runs/ffffffff", "/tasks/gait-short", "/runs/ffffffff/plot.png"]:
            status, headers, _ = request(base, "GET", path, dict(html, **extra))
            r[path] = [status, headers.get("Location", "")]
        r["/api/status"] = [request(base, "GET", "/api/status", extra)[0], ""]
        r["POST /api/tasks/gait-short/sessions"] = [request(base, "POST", "/api/tasks/gait-short/sessions", dict(same, **extra), "")[0], ""]
        r["WS /ws/live/imu0"] = [websocket_status(base, "/ws/live/imu0", dict(same, **extra)), ""]
    # The style sheet and script (no data) are served to the login form.
    found["static"] = request(base, "GET", "/static/app.css")[0]
    # The login form: a wrong token is refused, the right one sets the cookie.
    form = "token=%s&next=%%2Ftasks" % urllib.parse.quote("wrong-token-0000000")
    found["loginWrong"] = request(base, "POST", "/login", {"Content-Type": "application/x-www-form-urlencoded", **same}, form)[0]
    form = "token=%s&next=%%2Ftasks" % urllib.parse.quote(token)
    status, headers, _ = request(base, "POST", "/login", {"Content-Type": "application/x-www-form-urlencoded", **evil}, form)
    found["loginCrossSite"] = status
    status, headers, _ = request(base, "POST", "/login", {"Content-Type": "application/x-www-form-urlencoded", **same}, form)
    cookie = headers.get("Set-Cookie", "")
    found["login"] = [status, headers.get("Location", ""), cookie.split(";")[0] == "recorderd_token=" + token, "HttpOnly" in cookie, "SameSite=Strict" in cookie]
    auth = {"Cookie": "recorderd_token=" + token}
    status, _, page = request(base, "GET", "/devices", dict(html, **auth))
    csrf = page.split('name="csrf-token" content="')[1].split('"')[0] if 'csrf-token' in page else ""
    w = found["withToken"]
    w["/devices"] = status
    w["bearer /api/status"] = request(base, "GET", "/api/status", {"Authorization": "Bearer " + token})[0]
    w["WS same origin"] = websocket_status(base, "/ws/live/imu0", dict(same, **auth))
    w["WS cross-site"] = websocket_status(base, "/ws/live/imu0", dict(evil, **auth))
    w["POST no CSRF"] = request(base, "POST", "/api/tasks/gait-short/sessions", dict(same, **auth), "")[0]
    w["POST wrong CSRF"] = request(base, "POST", "/api/tasks/gait-short/sessions", dict(same, **auth, **{"X-CSRF-Token": "0" * 64}), "")[0]
    w["POST cross-site with CSRF"] = request(base, "POST", "/api/tasks/gait-short/sessions", dict(evil, **auth, **{"X-CSRF-Token": csrf}), "")[0]
    w["POST same origin with CSRF"] = request(base, "POST", "/api/tasks/gait-short/sessions", dict(same, **auth, **{"X-CSRF-Token": csrf}), "")[0]
    w["PUT"] = request(base, "PUT", "/api/tasks/gait-short/sessions", dict(same, **auth, **{"X-CSRF-Token": csrf}), "")[0]
    # Path tricks: never a file from outside the data directory.
    for path in ["/runs/../../../../etc/passwd", "/runs/..%2F..%2F..%2Fetc%2Fpasswd", "/runs/%2e%2e/plot.png", "/static/../../../../etc/passwd",
                 "/tasks/..%2F..%2F..%2Fetc%2Fpasswd", "/tasks/%2e%2e%2fsecret", "/runs/00000000/export/..%2F..%2Fetc%2Fpasswd",
                 "/runs/" + "f" * 37, "/tasks/" + "a" * 101]:
        status, _, body = request(base, "GET", path, dict(html, **auth))
        found["paths"][path] = [status, "root:" in body]
    # A real browser: the login form, then a cross-site form POST and WebSocket from another origin.
    CrossSite.target = base
    server = socketserver.TCPServer(("127.0.0.1", int(other_port)), CrossSite)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    driver = browser()
    try:
        driver.get(base + "/devices")
        found["browserRedirect"] = urllib.parse.urlsplit(driver.current_url).path
        driver.find_element(By.ID, "token").send_keys(token)
        driver.find_element(By.ID, "login").click()
        until(lambda: urllib.parse.urlsplit(driver.current_url).path == "/devices", 15, "the devices page after logging in")
        found["browserLive"] = live_plot(driver)
        driver.get("http://127.0.0.1:%s/" % other_port)
        found["crossSiteWebSocket"] = until(lambda: driver.find_element(By.ID, "ws").text != "pending" and driver.find_element(By.ID, "ws").text, 15, "the cross-site WebSocket")
        driver.find_element(By.ID, "f").submit()
        until(lambda: urllib.parse.urlsplit(driver.current_url).netloc == host, 15, "the cross-site POST's answer")
        found["crossSitePost"] = driver.find_element(By.TAG_NAME, "body").text
    finally:
        driver.quit()
        server.shutdown()
        server.server_close()
    print(json.dumps(found))


def live(base, ready, seconds):
    """A live plot left open while its device goes (the test reloads recorderd's configuration
    without it): the page says so. `ready` is a file made once the plot is live."""
    wait_for_server(base)
    driver = browser()
    try:
        driver.get(base + "/devices")
        found = {"before": live_plot(driver)}
        open(ready, "w").close()
        status = driver.find_element(By.CSS_SELECTOR, '[data-role="live-status"]')
        found["after"] = until(lambda: status.text != "live" and status.text, float(seconds), "the status line to change")
        print(json.dumps(found))
    finally:
        driver.quit()


def abandon(base, task):
    """Starts TASK on its screen, closes the browser while it records, then cancels the run from
    the Tasks page of a new browser."""
    wait_for_server(base)
    found = {}
    driver = browser()
    try:
        driver.get(base + "/tasks/" + task)
        driver.find_element(By.ID, "start").click()
        screen = driver.find_element(By.ID, "task-screen")
        def at_walk():
            if driver.find_element(By.ID, "next").is_displayed():
                driver.find_element(By.ID, "next").click()
            question = driver.find_element(By.ID, "question")
            if question.is_displayed() and question.find_elements(By.ID, "skip") and question.find_element(By.ID, "skip").is_enabled():
                question.find_element(By.ID, "skip").click()
            return screen.get_attribute("data-step") == "walking.outbound"
        until(at_walk, 60, "the walking step")
    finally:
        driver.quit()  # the tab goes mid-task
    driver = browser()
    try:
        driver.get(base + "/tasks")
        found["active"] = [li.get_attribute("data-run") for li in driver.find_elements(By.CSS_SELECTOR, ".active li[data-run]")]
        driver.find_element(By.CSS_SELECTOR, "button.cancel-run").click()
        until(lambda: not driver.find_elements(By.CSS_SELECTOR, ".active li[data-run]"), 30, "the run to be cancelled")
        found["afterCancel"] = [li.get_attribute("data-run") for li in driver.find_elements(By.CSS_SELECTOR, ".active li[data-run]")]
        found["consoleErrors"] = severe_logs(driver)
    finally:
        driver.quit()
    print(json.dumps(found))


def participant(base, task, sensor_height):
    """A gait task's screen: its participant fields; a body height out of range refused with the
    reason (and the start button back); then the task walked with SENSOR_HEIGHT entered."""
    wait_for_server(base)
    found = {}
    driver = browser()
    try:
        driver.set_window_size(*PHONE)

        def prepare():
            found["fields"] = [e.get_attribute("id") for e in driver.find_elements(By.CSS_SELECTOR, "#participant input")]
            body = driver.find_element(By.ID, "body-height")
            body.send_keys("9")
            driver.find_element(By.ID, "start").click()
            box = driver.find_element(By.ID, "outcome")
            found["refused"] = until(lambda: box.is_displayed() and box.text, 15, "the refusal")
            until(lambda: driver.find_element(By.ID, "start").is_enabled(), 15, "the start button back")
            body.clear()
            driver.find_element(By.ID, "sensor-height").send_keys(sensor_height)
        found["run"] = walk_task(driver, base, task, None, prepare)
        found["consoleErrors"] = severe_logs(driver)
    finally:
        driver.quit()
    print(json.dumps(found))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "browse":
        browse(*sys.argv[2:6])
    elif command == "security":
        security(*sys.argv[2:5])
    elif command == "live":
        live(*sys.argv[2:5])
    elif command == "abandon":
        abandon(*sys.argv[2:4])
    elif command == "participant":
        participant(*sys.argv[2:5])
    else:
        sys.exit("unknown command " + command)
