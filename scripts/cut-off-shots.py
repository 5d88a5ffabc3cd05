#!/usr/bin/env python3
"""Shots cut off just after the ball reached the rim, as when a live session is stopped.

For each shot of the 3D court's videos (rendered by `cameracore-bench --only court --work DIR`),
the video is cut AFTER seconds after the ball reached the rim (the truth's time for makes; for
misses, the time the full video's analysis gives) and `lebot analyze CUT --rim TRUE --json` is
run with each `lebot` given. Prints, per build and cut, how many of those last shots were called
right, wrong or unclear, and every shot whose call changed between the builds.

  scripts/cut-off-shots.py --work DIR --lebot OLD --lebot NEW \\
      --placements sideLeft,sideRight,angledLeft,angledRight,behind --seeds 1,2,3 --after 0.15,0.3,0.5
"""
import argparse, collections, concurrent.futures, json, os, subprocess, tempfile

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--work", required=True, help="the court bench's work folder (holds court-1280x720@30)")
parser.add_argument("--format", default="court-1280x720@30")
parser.add_argument("--lebot", action="append", required=True, help="a lebot binary (give two to compare)")
parser.add_argument("--placements", default="sideLeft,sideRight,angledLeft,angledRight,behind")
parser.add_argument("--seeds", default="1,2,3")
parser.add_argument("--after", default="0.15,0.3,0.5", help="seconds after the rim the video ends")
parser.add_argument("--jobs", type=int, default=2)
args = parser.parse_args()
afters = [float(a) for a in args.after.split(",")]
scratch = tempfile.mkdtemp(prefix="cut-off-")


def analyse(lebot, video, rim):
    out = subprocess.run([lebot, "analyze", video, "--json", "--threads", "1", "--rim", ",".join(map(str, rim))],
                         capture_output=True, text=True)
    return json.loads(out.stdout)["shots"] if out.returncode == 0 else None


def near(shots, release):
    found = [s for s in shots or [] if abs(s["releaseTime"] - release) < 0.5]
    return found[0] if found else None


jobs = []
for placement in args.placements.split(","):
    for seed in args.seeds.split(","):
        folder = f"{args.work}/{args.format}/{placement}/{seed}"
        truth = json.load(open(f"{folder}/truth.json"))[0]
        video = f"{folder}/{placement}-{seed}.mp4"
        full = analyse(args.lebot[0], video, truth["rim"])
        for index, event in enumerate(truth["events"]):
            if event["kind"] == "dribble":
                continue
            at = event.get("rimTime")
            if at is None:
                shot = near(full, event["release"])
                if shot is None:
                    continue
                at = shot.get("rimTime") or shot["apexTime"] + 0.4
            for after in afters:
                jobs.append((placement, seed, index, event, at + after, after, video, truth["rim"]))


def run(job):
    placement, seed, index, event, end, after, video, rim = job
    cut = f"{scratch}/{placement}-{seed}-{index}-{after}.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", video, "-t", str(end), "-c", "copy", cut], check=True)
    calls = []
    for lebot in args.lebot:
        shot = near(analyse(lebot, cut, rim), event["release"])
        calls.append((shot["outcome"], shot.get("reason", "")) if shot else ("NOT FOUND", ""))
    os.remove(cut)
    return placement, seed, event, after, calls


with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
    results = list(pool.map(run, jobs))
for build, lebot in enumerate(args.lebot):
    for after in afters:
        tally = collections.Counter()
        for placement, seed, event, at, calls in results:
            if at != after:
                continue
            outcome = calls[build][0]
            if outcome in ("MAKE", "MISS"):
                tally["right" if (outcome == "MAKE") == event["made"] else "wrong"] += 1
            else:
                tally["unclear" if outcome == "INDETERMINATE" else "not found"] += 1
        print(f"{lebot}, cut {after} s after the rim: {dict(tally)}")
for placement, seed, event, after, calls in results:
    if len(set(c[0] for c in calls)) > 1:
        print(f"{placement} {seed} {event['kind']} (made: {event['made']}) cut {after} s: "
              + " -> ".join(f"{c[0]} ({c[1]})" for c in calls))
