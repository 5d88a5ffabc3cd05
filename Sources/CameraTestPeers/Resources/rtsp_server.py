#!/usr/bin/python3
"""A real RTSP server for CameraCore's tests: GStreamer's gst-rtsp-server serving a live test
pattern as H.264 (or H.265) with Digest, Basic or no authentication, on a loopback port.

Prints "PORT <n>" on stdout once it listens, then serves until killed (SIGTERM/SIGINT).
Run with Debian's /usr/bin/python3, which has the GObject bindings.
"""
import argparse
import signal
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtsp", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--inside-namespace", action="store_true", help="allow non-loopback addresses")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--path", default="/stream")
    parser.add_argument("--auth", choices=["none", "basic", "digest", "both"], default="digest")
    parser.add_argument("--user", default="viewer")
    parser.add_argument("--password", default="secret")
    parser.add_argument("--codec", choices=["h264", "h265"], default="h264")
    parser.add_argument("--width", type=int, default=320)
    parser.add_argument("--height", type=int, default=240)
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--pattern", default="ball", help="videotestsrc pattern; 'solid-color' is a frozen picture, 'smpte-patch' bars with a small moving ball")
    args = parser.parse_args()

    Gst.init(None)
    if not args.inside_namespace and not args.address.startswith("127.") and args.address != "::1":
        print("refusing to listen outside loopback", file=sys.stderr)
        return 2

    encoder = (
        f"x264enc tune=zerolatency speed-preset=ultrafast key-int-max={args.fps} ! rtph264pay name=pay0 pt=96 config-interval=1"
        if args.codec == "h264"
        else f"x265enc tune=zerolatency speed-preset=ultrafast key-int-max={args.fps} ! rtph265pay name=pay0 pt=96 config-interval=1"
    )
    caps = f"video/x-raw,width={args.width},height={args.height},framerate={args.fps}/1"
    if args.pattern == "smpte-patch":
        # SMPTE 100 % bars (no noise block) with a small moving ball in one corner (about 1 % of the
        # picture changes):
        # a static scene with a little motion, which must not count as frozen.
        patch = f"video/x-raw,width={args.width // 10},height={args.height // 10},framerate={args.fps}/1"
        launch = (
            f"( compositor name=mix ! videoconvert ! {caps.replace('video/x-raw,', 'video/x-raw,format=I420,')} ! {encoder} "
            f"videotestsrc is-live=true pattern=smpte100 ! {caps} ! mix.sink_0 "
            f"videotestsrc is-live=true pattern=ball ! {patch} ! mix.sink_1 )"
        )
    else:
        launch = f"( videotestsrc is-live=true pattern={args.pattern} ! {caps} ! {encoder} )"

    server = GstRtspServer.RTSPServer()
    server.set_address(args.address)
    server.set_service(str(args.port))
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(launch)
    factory.set_shared(True)

    if args.auth != "none":
        auth = GstRtspServer.RTSPAuth()
        token = GstRtspServer.RTSPToken()
        token.set_string("media.factory.role", "user")
        methods = GstRtsp.RTSPAuthMethod(0)
        if args.auth in ("basic", "both"):
            auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, args.password), token)
            methods |= GstRtsp.RTSPAuthMethod.BASIC
        if args.auth in ("digest", "both"):
            auth.add_digest(args.user, args.password, token)
            methods |= GstRtsp.RTSPAuthMethod.DIGEST
        auth.set_supported_methods(methods)
        server.set_auth(auth)
        permissions = GstRtspServer.RTSPPermissions()
        permissions.add_permission_for_role("user", "media.factory.access", True)
        permissions.add_permission_for_role("user", "media.factory.construct", True)
        factory.set_permissions(permissions)

    server.get_mount_points().add_factory(args.path, factory)
    if server.attach(None) == 0:
        print("could not listen", file=sys.stderr)
        return 1
    print(f"PORT {server.get_bound_port()}", flush=True)

    loop = GLib.MainLoop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signum, loop.quit)
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
