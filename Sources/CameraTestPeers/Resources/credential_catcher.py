"""A stand-in for an attacker's host in the server's attack tests: answers every RTSP request with
401 and WWW-Authenticate: Basic (which makes a client send its credentials) and appends every byte
it receives to a log file. Prints "PORT <n>" once listening on 127.0.0.1.

Usage: credential_catcher.py LOGFILE
"""
import socket
import sys
import threading

log = open(sys.argv[1], "ab", buffering=0)
lock = threading.Lock()
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(16)
print("PORT %d" % server.getsockname()[1], flush=True)


def serve(connection):
    data = b""
    with connection:
        while True:
            chunk = connection.recv(4096)
            if not chunk:
                return
            with lock:
                log.write(chunk)
            data += chunk
            while b"\r\n\r\n" in data:
                head, data = data.split(b"\r\n\r\n", 1)
                cseq = b"1"
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"cseq:"):
                        cseq = line.split(b":", 1)[1].strip()
                connection.sendall(
                    b"RTSP/1.0 401 Unauthorized\r\nCSeq: " + cseq
                    + b'\r\nWWW-Authenticate: Basic realm="camera"\r\n\r\n')


while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
