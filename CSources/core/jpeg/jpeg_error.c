/* jpeg_error.c — see sy_jpeg_error.h. */
#include <errno.h>
#include <string.h>
#include "jpeg/sy_jpeg_error.h"

static void on_error_exit(j_common_ptr cinfo) {
    sy__jpeg_error *e = (sy__jpeg_error *)cinfo->err;
    /* libjpeg's own text for a failed fwrite guesses "out of disk space?";
     * errno, read before anything else can change it, says what it was. */
    if (cinfo->err->msg_code == JERR_FILE_WRITE) e->write_errno = errno ? errno : EIO;
    cinfo->err->format_message(cinfo, e->message);
    longjmp(e->jump, 1);
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; /* trace messages */
    sy__jpeg_error *e = (sy__jpeg_error *)cinfo->err;
    e->warnings++;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) e->truncated = 1;
    if (!e->message[0]) cinfo->err->format_message(cinfo, e->message);
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; /* never print */ }

struct jpeg_error_mgr *sy__jpeg_error_init(sy__jpeg_error *e) {
    memset(e, 0, sizeof *e);
    jpeg_std_error(&e->pub);
    e->pub.error_exit = on_error_exit;
    e->pub.emit_message = on_emit_message;
    e->pub.output_message = on_output_message;
    return &e->pub;
}
