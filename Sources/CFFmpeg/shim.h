// CFFmpeg: the FFmpeg headers CameraIO uses, plus tiny wrappers for what Swift cannot import.
// FFmpeg spells many constants as function-like macros (AVERROR(e), AVERROR_EOF via FFERRTAG) or as
// casts (AV_NOPTS_VALUE); Swift's importer drops those, so each gets a static inline function here.
#ifndef CAMERACORE_CFFMPEG_SHIM_H
#define CAMERACORE_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavdevice/avdevice.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

/// AVERROR(e): FFmpeg's negative errno codes.
static inline int cc_averror(int posixError) { return AVERROR(posixError); }
/// End of stream from demuxers and decoders.
static inline int cc_averror_eof(void) { return AVERROR_EOF; }
/// Exit requested by the interrupt callback.
static inline int cc_averror_exit(void) { return AVERROR_EXIT; }
static inline int cc_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int cc_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int cc_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
static inline int cc_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int cc_averror_protocol_not_found(void) { return AVERROR_PROTOCOL_NOT_FOUND; }
static inline int cc_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int cc_averror_http_unauthorized(void) { return AVERROR_HTTP_UNAUTHORIZED; }
static inline int cc_averror_http_forbidden(void) { return AVERROR_HTTP_FORBIDDEN; }
static inline int cc_averror_http_not_found(void) { return AVERROR_HTTP_NOT_FOUND; }
static inline int cc_averror_http_server_error(void) { return AVERROR_HTTP_SERVER_ERROR; }
static inline int cc_averror_http_other_4xx(void) { return AVERROR_HTTP_OTHER_4XX; }
/// "No timestamp" marker, an INT64_MIN cast in a macro.
static inline int64_t cc_nopts_value(void) { return AV_NOPTS_VALUE; }
/// AV_TIME_BASE_Q is a compound literal.
static inline AVRational cc_time_base_q(void) { return AV_TIME_BASE_Q; }
/// av_err2str is a macro over a stack buffer; this fills the caller's buffer instead.
static inline void cc_strerror(int code, char *buffer, size_t size) { av_strerror(code, buffer, size); }

#endif
