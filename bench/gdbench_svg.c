/*
 * --plot FILE.svg: one self-contained SVG, two panels. Left: latency against size, both
 * axes logarithmic, the average as a line and the min-max range across ranks as a band.
 * Right: bus and algorithm bandwidth against size (log size, linear GB/s). Axes, ticks,
 * labels and a legend; no external tool or font needed.
 */
#include "gdbench.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define WIDTH        1040
#define HEIGHT       440
#define PANEL_W      400
#define PANEL_H      300
#define PANEL_TOP    70
#define LEFT_X       90
#define RIGHT_X      610
#define COLOR_AVG    "#1f77b4"
#define COLOR_BAND   "#aec7e8"
#define COLOR_BUS    "#d62728"
#define COLOR_ALG    "#ff7f0e"

typedef struct {
    double x0, y0, w, h;
    double xmin, xmax; /* log2(size) */
    double ymin, ymax; /* log10(value) when ylog, else value */
    int    ylog;
} panel_t;

static void xml_text(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

static double px(const panel_t *p, double size)
{
    return p->x0 + (log2(size) - p->xmin) / (p->xmax - p->xmin) * p->w;
}

static double py(const panel_t *p, double value)
{
    double v = value;

    if (p->ylog) {
        v = log10(value > 0 ? value : pow(10.0, p->ymin));
    }
    if (v < p->ymin) {
        v = p->ymin;
    }
    return p->y0 + p->h - (v - p->ymin) / (p->ymax - p->ymin) * p->h;
}

/* A "nice" step (1, 2 or 5 times a power of ten) giving about `ticks` intervals. */
static double nice_step(double range, int ticks)
{
    double raw  = range / ticks;
    double mag  = pow(10.0, floor(log10(raw)));
    double norm = raw / mag;

    return (norm <= 1.0 ? 1.0 : norm <= 2.0 ? 2.0 : norm <= 5.0 ? 5.0 : 10.0) * mag;
}

static void draw_frame(FILE *f, const panel_t *p, const char *title, const char *ylabel)
{
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" stroke=\"#333\"/>\n",
            p->x0, p->y0, p->w, p->h);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">",
            p->x0 + p->w / 2, p->y0 - 12);
    xml_text(f, title);
    fputs("</text>\n", f);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\">Size (bytes)</text>\n",
            p->x0 + p->w / 2, p->y0 + p->h + 42);
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\" "
            "transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
            p->x0 - 58, p->y0 + p->h / 2, p->x0 - 58, p->y0 + p->h / 2, ylabel);
}

static void draw_x_ticks(FILE *f, const panel_t *p)
{
    int span = (int)(p->xmax - p->xmin);
    int step = span <= 8 ? 1 : span <= 16 ? 2 : span <= 24 ? 3 : 4;

    for (int e = (int)ceil(p->xmin); e <= (int)floor(p->xmax); e++) {
        char   label[32];
        double x = px(p, ldexp(1.0, e));
        if (e % step != 0) {
            continue;
        }
        gdbench_format_bytes_short((size_t)1 << e, label, sizeof(label));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x, p->y0, x,
                p->y0 + p->h);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", x, p->y0 + p->h, x,
                p->y0 + p->h + 5);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n", x,
                p->y0 + p->h + 18, label);
    }
}

static void draw_y_tick(FILE *f, const panel_t *p, double value)
{
    double y = py(p, value);

    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", p->x0, y, p->x0 + p->w, y);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", p->x0 - 5, y, p->x0, y);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%g</text>\n", p->x0 - 8, y + 4,
            value);
}

static void draw_y_ticks(FILE *f, const panel_t *p)
{
    if (p->ylog) {
        for (int e = (int)ceil(p->ymin - 1e-9); e <= (int)floor(p->ymax + 1e-9); e++) {
            draw_y_tick(f, p, pow(10.0, e));
        }
        return;
    }
    double step = nice_step(p->ymax - p->ymin, 5);
    for (double v = 0.0; v <= p->ymax + step * 1e-6; v += step) {
        draw_y_tick(f, p, v);
    }
}

typedef double (*row_value_fn)(const gdbench_row_t *row);

static double row_avg(const gdbench_row_t *r) { return r->avg_us; }
static double row_min(const gdbench_row_t *r) { return r->min_us; }
static double row_max(const gdbench_row_t *r) { return r->max_us; }
static double row_busbw(const gdbench_row_t *r) { return r->busbw; }
static double row_algbw(const gdbench_row_t *r) { return r->algbw; }

static void draw_line(FILE *f, const panel_t *p, const gdbench_report_t *rep, row_value_fn value, const char *color,
                      const char *dash, int markers)
{
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"", color,
            dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
    for (size_t i = 0; i < rep->nrows; i++) {
        if (rep->rows[i].size > 0) {
            fprintf(f, "%.1f,%.1f ", px(p, (double)rep->rows[i].size), py(p, value(&rep->rows[i])));
        }
    }
    fputs("\"/>\n", f);
    for (size_t i = 0; markers && i < rep->nrows; i++) {
        if (rep->rows[i].size > 0) {
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px(p, (double)rep->rows[i].size),
                    py(p, value(&rep->rows[i])), color);
        }
    }
}

/* The min-max band: along the max values, back along the min values. */
static void draw_band(FILE *f, const panel_t *p, const gdbench_report_t *rep)
{
    fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.6\" stroke=\"none\" points=\"", COLOR_BAND);
    for (size_t i = 0; i < rep->nrows; i++) {
        if (rep->rows[i].size > 0) {
            fprintf(f, "%.1f,%.1f ", px(p, (double)rep->rows[i].size), py(p, rep->rows[i].max_us));
        }
    }
    for (size_t i = rep->nrows; i-- > 0;) {
        if (rep->rows[i].size > 0) {
            fprintf(f, "%.1f,%.1f ", px(p, (double)rep->rows[i].size), py(p, rep->rows[i].min_us));
        }
    }
    fputs("\"/>\n", f);
}

static void draw_legend_entry(FILE *f, double x, double y, const char *color, const char *dash, int band,
                              const char *label)
{
    if (band) {
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"10\" fill=\"%s\" fill-opacity=\"0.6\"/>\n", x,
                y - 5, color);
    } else {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s%s%s/>\n",
                x, y, x + 24, y, color, dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", x + 30, y + 4, label);
}

/* Ranges over the plottable rows (size > 0; a log axis has no 0). */
static int data_ranges(const gdbench_report_t *rep, double *xmin, double *xmax, double *lat_min, double *lat_max,
                       double *bw_max)
{
    int n = 0;

    *xmin = INFINITY;
    *xmax = -INFINITY;
    *lat_min = INFINITY;
    *lat_max = 0.0;
    *bw_max  = 0.0;
    for (size_t i = 0; i < rep->nrows; i++) {
        const gdbench_row_t *r = &rep->rows[i];
        if (r->size == 0) {
            continue;
        }
        n++;
        *xmin    = fmin(*xmin, log2((double)r->size));
        *xmax    = fmax(*xmax, log2((double)r->size));
        *lat_min = r->min_us > 0 ? fmin(*lat_min, r->min_us) : *lat_min;
        *lat_max = fmax(*lat_max, r->max_us);
        *bw_max  = fmax(*bw_max, fmax(r->busbw, r->algbw));
    }
    return n;
}

static void write_svg(FILE *f, const gdbench_report_t *rep)
{
    const gdbench_options_t *o = rep->opts;
    double                   xmin, xmax, lat_min, lat_max, bw_max;
    int                      n = data_ranges(rep, &xmin, &xmax, &lat_min, &lat_max, &bw_max);
    char                     title[512];

    if (xmax - xmin < 1.0) {
        xmin -= 1.0;
        xmax += 1.0;
    }
    if (!(lat_min < INFINITY) || lat_max <= 0.0) {
        lat_min = 1.0;
        lat_max = 10.0;
    }
    panel_t lat = {LEFT_X, PANEL_TOP, PANEL_W, PANEL_H, xmin, xmax, floor(log10(lat_min)), ceil(log10(lat_max)), 1};
    if (lat.ymax - lat.ymin < 1.0) {
        lat.ymax = lat.ymin + 1.0;
    }
    double  bw_step = nice_step(bw_max > 0 ? bw_max : 1.0, 5);
    panel_t bw      = {RIGHT_X, PANEL_TOP, PANEL_W, PANEL_H, xmin, xmax, 0.0,
                       ceil((bw_max > 0 ? bw_max : 1.0) / bw_step) * bw_step, 0};

    unsigned flags = gdbench_test_info(o->test)->flags;
    snprintf(title, sizeof(title), "%s %s: %s, %d ranks%s%s%s%s%s", rep->program, gdbench_test_info(o->test)->name,
             rep->library, rep->nranks, (flags & GDBENCH_F_NO_DATA) ? "" : ", ",
             (flags & GDBENCH_F_NO_DATA) ? "" : gdbench_dtype_info(o->dtype)->name,
             (flags & GDBENCH_F_REDUCTION) ? " " : "", (flags & GDBENCH_F_REDUCTION) ? gdbench_op_name(o->op) : "",
             o->memory != GDBENCH_MEM_HOST ? ", device buffers" : "");
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
            "<title>",
            WIDTH, HEIGHT, WIDTH, HEIGHT);
    xml_text(f, title);
    fprintf(f, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#fafafa\"/>\n", WIDTH, HEIGHT);
    fprintf(f, "<text x=\"%d\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">", WIDTH / 2);
    xml_text(f, title);
    fputs("</text>\n", f);

    draw_frame(f, &lat, "Latency", "Latency (us), log scale");
    draw_frame(f, &bw, "Bandwidth", "GB/s");
    if (n == 0) {
        const char *why = o->test == GDBENCH_BARRIER ? "barrier moves no data" : "no size above 0 bytes";
        for (int i = 0; i < 2; i++) {
            const panel_t *p = i == 0 ? &lat : &bw;
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\">nothing to plot: %s",
                    p->x0 + p->w / 2, p->y0 + p->h / 2, why);
            if (i == 0 && rep->nrows > 0) {
                fprintf(f, " (%.2f us)", rep->rows[0].avg_us);
            }
            fputs("</text>\n", f);
        }
        fputs("</svg>\n", f);
        return;
    }
    draw_x_ticks(f, &lat);
    draw_y_ticks(f, &lat);
    draw_x_ticks(f, &bw);
    draw_y_ticks(f, &bw);

    draw_band(f, &lat, rep);
    draw_line(f, &lat, rep, row_min, COLOR_BAND, NULL, 0);
    draw_line(f, &lat, rep, row_max, COLOR_BAND, NULL, 0);
    draw_line(f, &lat, rep, row_avg, COLOR_AVG, NULL, 1);
    draw_line(f, &bw, rep, row_algbw, COLOR_ALG, "6,4", 0);
    draw_line(f, &bw, rep, row_busbw, COLOR_BUS, NULL, 1);

    draw_legend_entry(f, lat.x0 + 12, lat.y0 + 18, COLOR_AVG, NULL, 0, "average across ranks");
    draw_legend_entry(f, lat.x0 + 12, lat.y0 + 36, COLOR_BAND, NULL, 1, "min to max across ranks");
    draw_legend_entry(f, bw.x0 + 12, bw.y0 + 18, COLOR_BUS, NULL, 0, "busbw");
    draw_legend_entry(f, bw.x0 + 12, bw.y0 + 36, COLOR_ALG, "6,4", 0, "algbw");
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"#555\">busbw = algbw x %.3g "
            "(nccl-tests' factor for %s on %d ranks)%s</text>\n",
            WIDTH / 2, HEIGHT - 12, gdbench_busbw_factor(o->test, rep->nranks), gdbench_test_info(o->test)->name,
            rep->nranks, rep->rows[0].size == 0 ? "; size 0 is not drawn on a log axis" : "");
    fputs("</svg>\n", f);
}

int gdbench_svg_write(const gdbench_report_t *report, const char *path)
{
    FILE *f = fopen(path, "w");

    if (f == NULL) {
        gdbench_set_error("--plot: cannot write %s: %s", path, strerror(errno));
        return GDBENCH_ERR;
    }
    write_svg(f, report);
    if (fclose(f) != 0) {
        gdbench_set_error("--plot: error writing %s: %s", path, strerror(errno));
        return GDBENCH_ERR;
    }
    return GDBENCH_OK;
}
