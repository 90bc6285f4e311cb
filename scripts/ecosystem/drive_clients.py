"""Drives a real analytics client (Segment, RudderStack or PostHog, from PyPI) against `funnel serve`.

Usage: python drive_clients.py CLIENT ENDPOINT KEY RUN
CLIENT is segment, rudder or posthog. Sends the plan below for ten users (RUN makes the user names
unique), then resends the first messages of two users with the same ids and times, as a client
does after a lost answer. Prints one JSON line: what was sent, the client's version and its errors.

The plan, per user i (0-9), in time order one second apart, starting two hours ago:
  App Opened; Onboarding Started {flow_id signup, flow_version 1}; screen Welcome;
  Onboarding Step Completed {step_id welcome}; Signup Tapped (i < 6);
  Step Viewed + Step Completed {step_id profile} (i < 7); Account Created (i < 3);
  Onboarding Completed (i < 4); identify (i == 0).
"""

import datetime
import json
import sys
import uuid

client_name, endpoint, key, run = sys.argv[1:5]
errors = []


def on_error(error, items):
    errors.append(str(error))


def plan():
    base = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=2)
    messages = []
    for i in range(10):
        user = f"{client_name}-{run}-user-{i}"
        flow = {"flow_id": "signup", "flow_version": 1}
        steps = [("track", "App Opened", {}), ("track", "Onboarding Started", dict(flow, platform="python"))]
        steps.append(("screen", "Welcome", {}))
        steps.append(("track", "Onboarding Step Completed", dict(flow, step_id="welcome")))
        if i < 6:
            steps.append(("track", "Signup Tapped", {}))
        if i < 7:
            steps.append(("track", "Step Viewed", dict(flow, step_id="profile")))
            steps.append(("track", "Step Completed", dict(flow, step_id="profile")))
        if i < 3:
            steps.append(("track", "Account Created", {}))
        if i < 4:
            steps.append(("track", "Onboarding Completed", flow))
        if i == 0:
            steps.append(("identify", None, {"plan": "free"}))
        for k, (call, name, properties) in enumerate(steps):
            messages.append({
                "call": call, "name": name, "properties": properties, "user": user,
                "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{client_name}:{run}:{user}:{k}")),
                "time": base + datetime.timedelta(minutes=i, seconds=k),
            })
    return messages


def send_segment_like(module, messages):
    client = module.Client(key, host=endpoint, gzip=True, on_error=on_error, max_retries=5, upload_size=25)
    for m in messages:
        if m["call"] == "track":
            client.track(user_id=m["user"], event=m["name"], properties=m["properties"], timestamp=m["time"],
                         message_id=m["id"])
        elif m["call"] == "screen":
            client.screen(user_id=m["user"], name=m["name"], properties=m["properties"], timestamp=m["time"],
                          message_id=m["id"])
        else:
            client.identify(user_id=m["user"], traits=m["properties"], timestamp=m["time"], message_id=m["id"])
    client.flush()
    client.join()


def send_posthog(messages):
    from posthog import Posthog
    client = Posthog(key, host=endpoint, gzip=True, on_error=on_error, max_retries=5, flush_at=25,
                     disable_geoip=True, enable_exception_autocapture=False)
    for m in messages:
        if m["call"] == "track":
            client.capture(m["name"], distinct_id=m["user"], properties=m["properties"], timestamp=m["time"],
                           uuid=m["id"])
        elif m["call"] == "screen":
            client.capture("$screen", distinct_id=m["user"], properties={"$screen_name": m["name"]},
                           timestamp=m["time"], uuid=m["id"])
        else:
            client.set(distinct_id=m["user"], properties=m["properties"], timestamp=m["time"], uuid=m["id"])
    client.flush()
    client.shutdown()


def send(messages):
    if client_name == "segment":
        import segment.analytics as module
        send_segment_like(module, messages)
    elif client_name == "rudder":
        import rudderstack.analytics as module
        send_segment_like(module, messages)
    elif client_name == "posthog":
        send_posthog(messages)
    else:
        raise SystemExit(f"unknown client {client_name}")


def version():
    from importlib.metadata import version as v
    return {"segment": v("segment-analytics-python"), "rudder": v("rudder-sdk-python"), "posthog": v("posthog")}[client_name]


messages = plan()
send(messages)
users01 = [m for m in messages if m["user"].endswith(("-user-0", "-user-1"))][:5]
send(users01)  # a resend: same ids, same times
print(json.dumps({"client": client_name, "version": version(), "sent": len(messages) + len(users01),
                  "unique": len(messages), "errors": errors}))
