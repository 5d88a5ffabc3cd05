#!/usr/bin/env python3
"""An ONVIF camera for tests: a WS-Discovery responder and the device and media SOAP services.

Follows the public wire formats (WS-Discovery 2005/04, SOAP 1.2, ONVIF device and media WSDLs,
WS-Security UsernameToken PasswordDigest, HTTP Digest RFC 2617). Prints "PORT <n>" once both the
HTTP service and (with --discovery) the multicast listener are ready. Standard library only.
"""
import argparse
import base64
import datetime
import hashlib
import http.server
import random
import secrets
import socket
import sys
import threading
import urllib.parse
import urllib.request
import uuid
import xml.etree.ElementTree as ET

SOAP = "http://www.w3.org/2003/05/soap-envelope"
NAMESPACES = (
    'xmlns:s="http://www.w3.org/2003/05/soap-envelope" '
    'xmlns:tds="http://www.onvif.org/ver10/device/wsdl" '
    'xmlns:trt="http://www.onvif.org/ver10/media/wsdl" '
    'xmlns:tt="http://www.onvif.org/ver10/schema" '
    'xmlns:ter="http://www.onvif.org/ver10/error"'
)


def local(tag):
    return tag.rsplit("}", 1)[-1]


def find(node, name):
    for element in node.iter():
        if local(element.tag) == name:
            return element
    return None


def envelope(body):
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<s:Envelope {NAMESPACES}><s:Body>{body}</s:Body></s:Envelope>'


def fault(code, subcode, reason):
    return envelope(
        f"<s:Fault><s:Code><s:Value>{code}</s:Value><s:Subcode><s:Value>{subcode}</s:Value></s:Subcode></s:Code>"
        f'<s:Reason><s:Text xml:lang="en">{reason}</s:Text></s:Reason></s:Fault>'
    )


class Device:
    def __init__(self, args):
        self.args = args
        self.endpoint = args.endpoint or f"urn:uuid:{uuid.uuid4()}"
        self.port = 0
        self.dropped = False

    def now(self):
        return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=self.args.clock_skew)

    # WS-Security UsernameToken PasswordDigest, timestamps checked against the device clock.
    def wsse_ok(self, root):
        token = find(root, "UsernameToken")
        if token is None:
            return False
        user, password, nonce, created = (find(token, n) for n in ("Username", "Password", "Nonce", "Created"))
        if None in (user, password, nonce, created) or user.text != self.args.user:
            return False
        expected = base64.b64encode(
            hashlib.sha1(base64.b64decode(nonce.text) + created.text.encode() + self.args.password.encode()).digest()
        ).decode()
        if password.text.strip() != expected:
            return False
        try:
            stamp = datetime.datetime.strptime(created.text.strip(), "%Y-%m-%dT%H:%M:%SZ").replace(
                tzinfo=datetime.timezone.utc
            )
        except ValueError:
            return False
        return abs((stamp - self.now()).total_seconds()) <= 5

    def answer(self, operation, root, host):
        a = self.args
        if operation == "GetSystemDateAndTime":
            t = self.now()
            return envelope(
                "<tds:GetSystemDateAndTimeResponse><tds:SystemDateAndTime><tt:DateTimeType>NTP</tt:DateTimeType>"
                "<tt:DaylightSavings>false</tt:DaylightSavings><tt:UTCDateTime>"
                f"<tt:Time><tt:Hour>{t.hour}</tt:Hour><tt:Minute>{t.minute}</tt:Minute><tt:Second>{t.second}</tt:Second></tt:Time>"
                f"<tt:Date><tt:Year>{t.year}</tt:Year><tt:Month>{t.month}</tt:Month><tt:Day>{t.day}</tt:Day></tt:Date>"
                "</tt:UTCDateTime></tds:SystemDateAndTime></tds:GetSystemDateAndTimeResponse>"
            )
        if operation == "GetDeviceInformation":
            return envelope(
                f"<tds:GetDeviceInformationResponse><tds:Manufacturer>{a.manufacturer}</tds:Manufacturer>"
                f"<tds:Model>{a.hardware}</tds:Model><tds:FirmwareVersion>1.2.3</tds:FirmwareVersion>"
                "<tds:SerialNumber>SN0001</tds:SerialNumber><tds:HardwareId>HW-42</tds:HardwareId>"
                "</tds:GetDeviceInformationResponse>"
            )
        if operation == "GetCapabilities":
            base = f"http://{a.xaddr_host}:{self.port}"
            return envelope(
                "<tds:GetCapabilitiesResponse><tds:Capabilities>"
                f"<tt:Device><tt:XAddr>{base}/onvif/device_service</tt:XAddr></tt:Device>"
                f"<tt:Media><tt:XAddr>{base}/onvif/media_service</tt:XAddr></tt:Media>"
                "</tds:Capabilities></tds:GetCapabilitiesResponse>"
            )
        if operation == "GetProfiles":
            profiles = ""
            for token, name, width, height, fps in (("main", "MainStream", 1920, 1080, 25), ("sub", "SubStream", 640, 360, 15)):
                profiles += (
                    f'<trt:Profiles token="{token}" fixed="true"><tt:Name>{name}</tt:Name>'
                    f'<tt:VideoEncoderConfiguration token="enc_{token}"><tt:Name>enc</tt:Name><tt:Encoding>H264</tt:Encoding>'
                    f"<tt:Resolution><tt:Width>{width}</tt:Width><tt:Height>{height}</tt:Height></tt:Resolution>"
                    f"<tt:RateControl><tt:FrameRateLimit>{fps}</tt:FrameRateLimit><tt:BitrateLimit>2048</tt:BitrateLimit></tt:RateControl>"
                    "</tt:VideoEncoderConfiguration></trt:Profiles>"
                )
            return envelope(f"<trt:GetProfilesResponse>{profiles}</trt:GetProfilesResponse>")
        if operation in ("GetStreamUri", "GetSnapshotUri"):
            token = find(root, "ProfileToken")
            if token is None or token.text not in ("main", "sub"):
                return fault("s:Sender", "ter:InvalidArgVal", "No such profile")
            # sub-stream-off: the second stream is turned off in the camera's own settings; its
            # profile is still listed, but asking for its address is refused (many NVR-bundled
            # cameras ship so).
            if operation == "GetStreamUri" and token.text == "sub" and "sub-stream-off" in a.quirk:
                return fault("s:Receiver", "ter:IncompleteConfiguration", "The sub stream is turned off")
            uri = a.rtsp_uri if operation == "GetStreamUri" else f"http://{a.xaddr_host}:{self.port}/snapshot.jpg"
            uri = uri.replace("{profile}", token.text)
            return envelope(
                f"<trt:{operation}Response><trt:MediaUri><tt:Uri>{uri}</tt:Uri>"
                "<tt:InvalidAfterConnect>false</tt:InvalidAfterConnect><tt:InvalidAfterReboot>false</tt:InvalidAfterReboot>"
                f"<tt:Timeout>PT0S</tt:Timeout></trt:MediaUri></trt:{operation}Response>"
            )
        return fault("s:Receiver", "ter:ActionNotSupported", f"{operation} is not supported")


def parse_digest(text):
    fields = {}
    for part in urllib.request.parse_http_list(text):
        if "=" in part:
            key, value = part.split("=", 1)
            fields[key.strip()] = value.strip().strip('"')
    return fields


def make_handler(device):
    nonces = set()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, text, extra=()):
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/soap+xml; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for name, value in extra:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            data = self.rfile.read(min(length, 1 << 20))
            try:
                root = ET.fromstring(data)
                body = find(root, "Body")
                operation = local(list(body)[0].tag)
            except Exception:
                return self.reply(400, fault("s:Sender", "ter:WellFormed", "not a SOAP request"))
            auth = device.args.auth
            quirks = device.args.quirk
            # auth-for-time: the clock only with a login, as ipycam 1.3 does once a password is set
            # (a client that reads the clock first to correct its WS-Security timestamps must
            # then send one with its device-local guess).
            if operation != "GetSystemDateAndTime" or "auth-for-time" in quirks:
                if auth == "wsse" and not device.wsse_ok(root):
                    return self.reply(400, fault("s:Sender", "ter:NotAuthorized", "Sender not Authorized"))
                if auth == "digest":
                    header = self.headers.get("Authorization", "")
                    fields = parse_digest(header[7:]) if header.startswith("Digest ") else {}
                    if not check_digest(device, fields, "POST", nonces):
                        nonce = secrets.token_hex(16)
                        nonces.add(nonce)
                        challenge = f'Digest realm="onvif-test", nonce="{nonce}", qop="auth", algorithm=MD5'
                        # rfc2069-digest: a challenge without qop (RFC 2069), as older embedded
                        # web servers send; GStreamer's RTSP server does the same for RTSP.
                        if "rfc2069-digest" in quirks:
                            challenge = f'Digest realm="onvif-test", nonce="{nonce}"'
                        return self.reply(401, "", [("WWW-Authenticate", challenge)])
            # drops-first-stream-uri: the first GetStreamUri gets no answer, the connection is just
            # closed (a camera's small web server, busy streaming, does this now and then).
            if operation == "GetStreamUri" and "drops-first-stream-uri" in quirks and not device.dropped:
                device.dropped = True
                self.close_connection = True
                return
            self.reply(200, device.answer(operation, root, self.headers.get("Host", "")))

    return Handler


def check_digest(device, fields, method, nonces):
    if fields.get("username") != device.args.user or fields.get("nonce") not in nonces:
        return False
    ha1 = hashlib.md5(f"{device.args.user}:{fields.get('realm')}:{device.args.password}".encode()).hexdigest()
    ha2 = hashlib.md5(f"{method}:{fields.get('uri')}".encode()).hexdigest()
    if fields.get("qop") == "auth":
        expected = f"{ha1}:{fields['nonce']}:{fields.get('nc')}:{fields.get('cnonce')}:auth:{ha2}"
    else:
        expected = f"{ha1}:{fields['nonce']}:{ha2}"
    return fields.get("response") == hashlib.md5(expected.encode()).hexdigest()


def discovery_loop(device, sock):
    a = device.args
    while True:
        data, sender = sock.recvfrom(65535)
        try:
            root = ET.fromstring(data)
        except ET.ParseError:
            continue
        probe = find(root, "Probe")
        message_id = find(root, "MessageID")
        if probe is None or message_id is None:
            continue
        types = find(probe, "Types")
        if types is not None and types.text and "NetworkVideoTransmitter" not in types.text:
            continue
        quirks = a.quirk
        scopes = " ".join(
            [
                "onvif://www.onvif.org/type/video_encoder",
                "onvif://www.onvif.org/name/" + urllib.parse.quote(a.name),
                "onvif://www.onvif.org/hardware/" + urllib.parse.quote(a.hardware),
                "onvif://www.onvif.org/location/country/test",
            ]
        )
        xaddrs = f"http://{a.xaddr_host}:{device.port}/onvif/device_service"
        # ipv6-xaddrs: dual-stack devices list an IPv6 service address too, not always second.
        if "ipv6-xaddrs" in quirks:
            xaddrs = f"http://[fe80::2]:{device.port}/onvif/device_service " + xaddrs
        # relates-to-rewritten: RelatesTo carries the probe's MessageID with its case and `urn:`
        # prefix changed (ipycam 1.3 echoes it as it reads it; other firmwares upper-case it).
        relates_to = message_id.text
        if "relates-to-rewritten" in quirks:
            relates_to = relates_to.upper().replace("URN:", "")
        # soap11: the answer in SOAP 1.1's namespace although the probe was SOAP 1.2, as some
        # older firmwares answer.
        soap = "http://schemas.xmlsoap.org/soap/envelope/" if "soap11" in quirks else "http://www.w3.org/2003/05/soap-envelope"
        # no-wrapper: ProbeMatch straight in the Body without ProbeMatches, as ipycam 1.3 sends it.
        open_matches, close_matches = ("", "") if "no-wrapper" in quirks else ("<d:ProbeMatches>", "</d:ProbeMatches>")
        reply = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<SOAP-ENV:Envelope xmlns:SOAP-ENV="{soap}" '
            'xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing" '
            'xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery" '
            'xmlns:dn="http://www.onvif.org/ver10/network/wsdl" xmlns:tds="http://www.onvif.org/ver10/device/wsdl">'
            f"<SOAP-ENV:Header><wsa:MessageID>urn:uuid:{uuid.uuid4()}</wsa:MessageID>"
            f"<wsa:RelatesTo>{relates_to}</wsa:RelatesTo>"
            "<wsa:To>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</wsa:To>"
            "<wsa:Action>http://schemas.xmlsoap.org/ws/2005/04/discovery/ProbeMatches</wsa:Action></SOAP-ENV:Header>"
            f"<SOAP-ENV:Body>{open_matches}<d:ProbeMatch>"
            f"<wsa:EndpointReference><wsa:Address>{device.endpoint}</wsa:Address></wsa:EndpointReference>"
            "<d:Types>dn:NetworkVideoTransmitter tds:Device</d:Types>"
            f"<d:Scopes>{scopes}</d:Scopes>"
            f"<d:XAddrs>{xaddrs}</d:XAddrs>"
            f"<d:MetadataVersion>1</d:MetadataVersion></d:ProbeMatch>{close_matches}</SOAP-ENV:Body></SOAP-ENV:Envelope>"
        )
        # WS-Discovery: answer after a random delay so that many devices do not answer at once.
        delay = random.uniform(0, a.max_delay_ms / 1000)
        threading.Timer(delay, sock.sendto, (reply.encode(), sender)).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--address", default="127.0.0.1", help="HTTP service address")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--inside-namespace", action="store_true", help="allow non-loopback addresses")
    parser.add_argument("--discovery", metavar="INTERFACE_ADDRESS", help="join 239.255.255.250 on this interface")
    parser.add_argument("--discovery-port", type=int, default=3702)
    parser.add_argument("--xaddr-host", help="host written in XAddrs (0.0.0.0 tests substitution)")
    parser.add_argument("--auth", choices=["none", "wsse", "digest"], default="wsse")
    parser.add_argument("--user", default="admin")
    parser.add_argument("--password", default="secret")
    parser.add_argument("--clock-skew", type=float, default=0, help="device clock minus real time, seconds")
    parser.add_argument("--name", default="Test Camera")
    parser.add_argument("--hardware", default="TC-100")
    parser.add_argument("--manufacturer", default="CameraCore")
    parser.add_argument("--endpoint")
    parser.add_argument("--rtsp-uri", default="rtsp://0.0.0.0:554/{profile}")
    parser.add_argument("--max-delay-ms", type=float, default=100)
    parser.add_argument(
        "--quirk", action="append", default=[],
        choices=[
            "auth-for-time", "rfc2069-digest", "ipv6-xaddrs", "relates-to-rewritten", "soap11", "no-wrapper",
            "drops-first-stream-uri", "sub-stream-off",
        ],
        help="behave as some real devices do (see the comments where each applies)")
    args = parser.parse_args()
    if args.xaddr_host is None:
        args.xaddr_host = args.address
    if not args.inside_namespace and not args.address.startswith("127."):
        print("refusing to listen outside loopback", file=sys.stderr)
        return 2

    device = Device(args)
    server = http.server.ThreadingHTTPServer((args.address, args.port), make_handler(device))
    device.port = server.server_address[1]
    if args.discovery:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("", args.discovery_port))
        membership = socket.inet_aton("239.255.255.250") + socket.inet_aton(args.discovery)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
        threading.Thread(target=discovery_loop, args=(device, sock), daemon=True).start()
    print(f"PORT {device.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
