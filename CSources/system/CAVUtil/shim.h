#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
