/* fuzz_conf.c -- libFuzzer target: conf_read, the entry every program uses,
 * on a regular file holding the input (format detection, the checks of the
 * declared sizes against the file size, either reader), then a write of
 * what it accepted to /dev/null in the format it came in.  See fuzz.h. */
#include "fuzz.h"
#include "io/conf.h"
#include "io/confio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct conf c;
    const char *path = fuzz_path(data, n);
    FUZZ_TRY {
        conf_read(path, &c);
        FILE *o = fopen("/dev/null", "wb");
        if (o) {
            if (c.format == CONF_NERSC) nersc_write(o, "out", &c, &(struct conf_write_opts){.format = CONF_NERSC}, 32);
            else ildg_write(o, "out", &c, c.file_prec);
            fclose(o);
        }
        conf_free(&c);
    }
    fuzz_release();
    return 0;
}
