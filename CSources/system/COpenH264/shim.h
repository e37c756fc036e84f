#include <wels/codec_api.h>
