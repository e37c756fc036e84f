/* sy_xmp_text.h — bounded text scanning of an XMP packet (engine-private):
 * the few operations the Motion Photo and extended-XMP readers and strippers share. XMP is
 * parsed as text, never as a tree: the packets phones write are flat RDF and
 * every scan stays inside [p, p + len). */
#ifndef SY_XMP_TEXT_H
#define SY_XMP_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define SY__XMP_NS_CAMERA "http://ns.google.com/photos/1.0/camera/"
#define SY__XMP_NS_CONTAINER "http://ns.google.com/photos/1.0/container/"
#define SY__XMP_NS_ITEM "http://ns.google.com/photos/1.0/container/item/"
#define SY__XMP_MAX_PREFIX 32

/* A packet edited in place: text is only ever removed, so it shrinks inside its buffer. */
typedef struct sy__xmp_text {
    uint8_t *p;
    size_t len;
} sy__xmp_text;

/* Removes [from, to) of the packet. */
void sy__xmp_cut(sy__xmp_text *x, size_t from, size_t to);

/* First occurrence of the NUL-terminated `needle` in [from, end), or NULL. */
const uint8_t *sy__xmp_find(const uint8_t *from, const uint8_t *end, const char *needle);

/* 1 for the characters of an XML name (ASCII subset phones use). */
int sy__xmp_name_char(uint8_t c);

/* The prefix the packet binds to `ns` (xmlns:PREFIX="ns"), or `fallback`. */
void sy__xmp_prefix_for(const uint8_t *p, size_t len, const char *ns, const char *fallback,
                        char out[SY__XMP_MAX_PREFIX]);

/* The value of property `prefix:name` in [from, end), as an attribute
 * (prefix:name="v") or a simple element (<prefix:name>v</prefix:name>),
 * copied NUL-terminated into out[cap]. 1 = found, 0 = absent, -1 = present
 * but malformed or longer than cap - 1. */
int sy__xmp_value(const uint8_t *from, const uint8_t *end, const char *prefix, const char *name, char *out,
                  size_t cap);

/* Removes, in place, every attribute ` prefix:Name…="…"` and element
 * `<prefix:Name…>…</prefix:Name…>` (or self-closing) whose name starts with
 * one of `names`. Returns the new length; *removed = 1 when anything went. */
size_t sy__xmp_remove_properties(uint8_t *xmp, size_t len, const char *prefix, const char *const *names, size_t count,
                                 int *removed);

#endif
