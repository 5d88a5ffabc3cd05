#!/usr/bin/env python3
"""A bot match in OpenArena (Debian's `openarena`, a Quake III-engine shooter) on its own Xvfb display,
watched by a spectator that follows one bot: the screen shows that bot's view, with its own
"You fragged NAME" centre print and the obituary lines top-left, as a player's capture would.

Prints one JSON object per line on stdout:
  {"ready": true, "display": ":N", "followed": "Sarge", "wallclock": T}
  {"kill": {"attacker": "Sarge", "victim": "Grism", "means": "MOD_ROCKET", "level": "1:05"}, "wallclock": T}
Each kill is stamped with this machine's clock (time.time()) when the game wrote it to its log, which
it flushes at once (g_logSync 1); ids are mapped to names from the log's ClientUserinfoChanged lines.

Optionally records the screen with ffmpeg's x11grab (`--record FILE`), keeping the grab's wall-clock
timestamps (-copyts), so a kill's wallclock minus the file's start time is its time in the video.

Stops on SIGTERM or SIGINT, or when stdin closes, or after --seconds.
"""
import argparse, ctypes, json, os, re, select, signal, subprocess, sys, time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--display", type=int, required=True)
parser.add_argument("--width", type=int, default=1280)
parser.add_argument("--height", type=int, default=720)
parser.add_argument("--map", default="oa_dm4")
parser.add_argument("--follow", default="Sarge", help="the bot the screen follows (one of --bots)")
parser.add_argument("--bots", default="Sarge,Grism,Angelyss,Kyonshi,Major",
                    help="comma-separated bot names; NAME:SKILL sets a skill (1-5, default 4)")
parser.add_argument("--home", required=True, help="the game's home directory (config, log)")
parser.add_argument("--seconds", type=float, default=0, help="stop after this long (0: run until stopped)")
parser.add_argument("--record", help="also record the screen to this file (x11grab, 30 fps, x264)")
parser.add_argument("--framerate", type=int, default=30)
args = parser.parse_args()

children = []
stopping = False


def emit(obj):
    obj["wallclock"] = time.time()
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def stop(*_):
    global stopping
    stopping = True


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
# A child started from a test runner's thread inherits that thread's blocked signals.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

libc = ctypes.CDLL(None, use_errno=True)


def die_with_parent():
    # PR_SET_PDEATHSIG: the game, its display and the recorder go when this script goes, even by SIGKILL.
    libc.prctl(1, signal.SIGKILL)


def cleanup():
    for child in reversed(children):
        if child.poll() is None:
            # ffmpeg finishes its file on "q"; the others are simply terminated.
            if child.args[0] == "ffmpeg":
                try:
                    child.stdin.write(b"q")
                    child.stdin.flush()
                except Exception:
                    child.terminate()
            else:
                child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()


def fail(message):
    sys.stderr.write("openarena_match: " + message + "\n")
    cleanup()
    sys.exit(1)


display = ":%d" % args.display
os.makedirs(args.home, exist_ok=True)
log_path = os.path.join(args.home, "baseoa", "match.log")
if os.path.exists(log_path):
    os.remove(log_path)

xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "%dx%dx24" % (args.width, args.height), "-nolisten", "tcp"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
children.append(xvfb)
deadline = time.time() + 10
while not os.path.exists("/tmp/.X11-unix/X%d" % args.display):
    if xvfb.poll() is not None or time.time() > deadline:
        fail("Xvfb did not start on %s (is the display taken?)" % display)
    time.sleep(0.05)

bots = []
for entry in args.bots.split(","):
    name, _, skill = entry.partition(":")
    bots.append((name.strip(), skill.strip() or "4"))
if args.follow not in [name for name, _ in bots]:
    fail("--follow %s is not one of the bots" % args.follow)

command = ["/usr/games/openarena", "+set", "fs_homepath", args.home,
           "+set", "r_mode", "-1", "+set", "r_customwidth", str(args.width), "+set", "r_customheight", str(args.height),
           "+set", "r_fullscreen", "0", "+set", "s_initsound", "0", "+set", "com_introplayed", "1",
           "+set", "g_log", "match.log", "+set", "g_logSync", "1", "+set", "sv_pure", "0", "+set", "g_doWarmup", "0",
           "+set", "fraglimit", "0", "+set", "timelimit", "0", "+set", "name", "Watcher",
           "+set", "cl_allowDownload", "0", "+set", "com_maxfps", "60", "+map", args.map]
for name, skill in bots:
    command += ["+addbot", name, skill]
game_env = dict(os.environ, DISPLAY=display)
game = subprocess.Popen(command, env=game_env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
children.append(game)

names = {}
log = None
buffered = ""
watcher_in = False
followed_at = None
ready = False
recorder = None
started = time.time()
userinfo = re.compile(r"ClientUserinfoChanged: (\d+) n\\([^\\]*)")
kill = re.compile(r"Kill: (\d+) (\d+) (\d+): .* by (\S+)")


def console(line):
    game.stdin.write((line + "\n").encode())
    game.stdin.flush()


while not stopping:
    if game.poll() is not None:
        fail("the game exited (status %s)" % game.returncode)
    if not ready and time.time() - started > 60:
        fail("the match did not start within 60 s")
    if args.seconds and ready and time.time() - ready_at > args.seconds:
        break
    if select.select([sys.stdin], [], [], 0)[0] and not sys.stdin.readline():
        break  # stdin closed: whoever started us has gone
    if log is None and os.path.exists(log_path):
        log = open(log_path, "r", errors="replace")
    if log is not None:
        buffered += log.read()
        *lines, buffered = buffered.split("\n")
        for line in lines:
            match = userinfo.search(line)
            if match:
                names[int(match.group(1))] = re.sub(r"\^.", "", match.group(2))
                if names[int(match.group(1))] == "Watcher" and not watcher_in:
                    watcher_in = True
                    console("team spectator")
                    followed_at = time.time() + 1.0
                continue
            match = kill.search(line)
            if match and ready:
                attacker, victim = int(match.group(1)), int(match.group(2))
                emit({"kill": {"attacker": names.get(attacker, "<world>"), "victim": names.get(victim, str(victim)),
                               "means": match.group(4), "level": line.split()[0]}})
    if followed_at and time.time() >= followed_at:
        followed_at = None
        console("follow " + args.follow)
        # The spectator's view switches at the next snapshot; allow it a moment before saying ready.
        time.sleep(1.0)
        if args.record:
            recorder = subprocess.Popen(
                ["ffmpeg", "-loglevel", "error", "-y", "-f", "x11grab", "-framerate", str(args.framerate),
                 "-video_size", "%dx%d" % (args.width, args.height), "-i", display, "-copyts",
                 "-c:v", "libx264", "-preset", "ultrafast", "-crf", "20", "-g", str(args.framerate * 2),
                 args.record], stdin=subprocess.PIPE, preexec_fn=die_with_parent)
            children.append(recorder)
        ready = True
        ready_at = time.time()
        emit({"ready": True, "display": display, "followed": args.follow})
    time.sleep(0.02)

cleanup()
