// CTesseract: Tesseract 5's C API (libtesseract-dev) for CGame's on-screen text recognition.
// Debian builds libtesseract with OpenMP; its LSTM asks for several threads per text line, which on
// small crops costs more in thread hand-offs than it saves. OpenMP reads OMP_THREAD_LIMIT only when
// libgomp loads, so the recognizer caps each of its worker threads with omp_set_num_threads(1)
// and the `cgame` command sets OMP_THREAD_LIMIT=1 for itself (see TesseractRecognizer).
#include <tesseract/capi.h>
