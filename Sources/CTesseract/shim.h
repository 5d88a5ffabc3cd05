// CTesseract: Tesseract 5's C API (libtesseract-dev) for CGame's on-screen text recognition.
// Debian builds libtesseract with OpenMP; its LSTM asks for several threads per text line, which on
// small crops costs more in thread hand-offs than it saves. OpenMP reads OMP_THREAD_LIMIT only when
// libgomp loads, so the `cgame` command sets OMP_THREAD_LIMIT=1 and re-executes itself (see
// TesseractRecognizer).
#include <tesseract/capi.h>
