/* fuzz_stream.h -- the body of the stream targets (fuzz_ildg.c,
 * fuzz_nersc.c): included after fuzz.h and io/confio.h.
 *   fuzz_stream_target(data, n, name, read, after)
 */
#ifndef LAT_FUZZ_STREAM_H
#define LAT_FUZZ_STREAM_H

/* a stream target: reader read() on a stream that is not a regular file
 * (the pipe path), then after() over what it accepted, which touches every
 * link; ildg and nersc differ only in these */
static int fuzz_stream_target(const uint8_t *data, size_t n, const char *name, void (*read)(struct byte_in *, struct conf *),
                              double (*after)(const struct conf *))
{
    static struct conf c;
    FILE *f = fuzz_file(data, n);
    if (!f) return 0;
    FUZZ_TRY {
        memset(&c, 0, sizeof c);
        c.name = name;
        struct byte_in in;
        byte_in_init(&in, f, c.name, NULL, 0);
        read(&in, &c);
        volatile double p = after(&c);
        (void)p;
        conf_free(&c);
    }
    fuzz_release();
    fclose(f);
    return 0;
}
#endif
