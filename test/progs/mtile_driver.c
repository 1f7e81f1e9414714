/*
 * mtile_driver - drives Debian's unchanged /usr/bin/mtile (the compute half
 * of the X11 program xep) the way xep does, and checks its pixels.
 *
 * The protocol, read from the mtile binary: mtile loops on pvm_recv(-1, 1),
 * unpacks "%lf %lf %lf %lf %d %d" (x1, y1, x2, y2, width, height), computes
 * a Mandelbrot tile (255 iterations, escape when |z|^2 > 4, pixel 255-n, or
 * 0 inside the set; row y is y1 + y*(y2-y1)/height, column x likewise) and
 * answers the sender with tag 2: pvm_packf("%+ %*c", PvmDataDefault,
 * width*height, pixels).  A width or height outside 1..2048 makes it print
 * "insane wd/ht" and exit.
 *
 * Usage: mtile_driver [NWORKERS]  (spawns "mtile" through the spawn path)
 */
#include "tcommon.h"

#define TAG_WORK  1
#define TAG_IMAGE 2
#define TAG_EXIT  60

/* The same arithmetic, in the same order, as mtile. */
static void tile(double x1, double y1, double x2, double y2, int wd, int ht,
		 unsigned char *pix)
{
	double dx = x2 - x1, dy = y2 - y1;
	int x, y;
	for (y = ht - 1; y >= 0; y--) {
		double ci = (double)y * dy / (double)ht + y1;
		for (x = wd - 1; x >= 0; x--) {
			double cr = (double)x * dx / (double)wd + x1;
			double zr = cr, zi = ci;
			int n = 0;
			unsigned char v;
			for (;;) {
				double zr2 = zr * zr, zi2 = zi * zi;
				if (zr2 + zi2 > 4.0) {
					v = (unsigned char)~n;
					break;
				}
				double nzi = (zi + zi) * zr;
				zr = (zr2 - zi2) + cr;
				zi = nzi + ci;
				if (++n == 255) {
					v = 0;
					break;
				}
			}
			pix[y * wd + x] = v;
		}
	}
}

struct job {
	double x1, y1, x2, y2;
	int wd, ht;
};

static const struct job jobs[] = {
	{-2.0, -1.25, 0.5, 1.25, 160, 120},
	{-0.75, 0.05, -0.70, 0.10, 97, 61},
	{-1.7687, -0.0017, -1.7681, 0.0017, 64, 200},
	{0.25, 0.0, 0.26, 0.01, 1, 1},
	{-2.0, -2.0, 2.0, 2.0, 2048, 3},
	{-0.1, 0.6, 0.1, 0.8, 256, 256},
	{-1.5, -1.0, 0.5, 1.0, 33, 2048},
	{0.3, -0.6, 0.45, -0.45, 300, 200},
};
#define NJOBS (int)(sizeof jobs / sizeof jobs[0])

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	int nw = argc > 1 ? atoi(argv[1]) : 2, i, j;
	if (nw < 1 || nw > 8)
		nw = 2;
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	int w[8];
	int n = pvm_spawn("mtile", NULL, 0, NULL, nw, w);
	EQ(n, nw);
	if (n != nw)
		return t_done("mtile");
	EQ(pvm_notify(PvmTaskExit, TAG_EXIT, nw, w), 0);
	/* every worker gets every tile, several in flight at once */
	for (i = 0; i < nw; i++)
		for (j = 0; j < NJOBS; j++) {
			const struct job *jb = &jobs[(j + i) % NJOBS];
			EQ(pvm_packf("%+ %lf %lf %lf %lf %d %d", PvmDataDefault,
				     jb->x1, jb->y1, jb->x2, jb->y2, jb->wd,
				     jb->ht),
			   0);
			EQ(pvm_send(w[i], TAG_WORK), 0);
		}
	long pixels = 0, nonzero = 0;
	for (i = 0; i < nw; i++)
		for (j = 0; j < NJOBS; j++) {
			const struct job *jb = &jobs[(j + i) % NJOBS];
			int b = t_recv(w[i], TAG_IMAGE, 60);
			CHECK(b > 0, "worker %d tile %d: no image", i, j);
			if (b <= 0)
				continue;
			int len = 0, np = jb->wd * jb->ht;
			pvm_bufinfo(b, &len, NULL, NULL);
			CHECK(len >= np && len <= np + 8,
			      "tile %d: %d bytes for %d pixels", j, len, np);
			unsigned char *got = calloc(np, 1),
				      *exp = calloc(np, 1);
			EQ(pvm_unpackf("%*c", np, got), 0);
			tile(jb->x1, jb->y1, jb->x2, jb->y2, jb->wd, jb->ht,
			     exp);
			int k, bad = 0, first = -1;
			for (k = 0; k < np; k++) {
				if (got[k] != exp[k] && !bad++)
					first = k;
				nonzero += exp[k] != 0;
			}
			CHECK(bad == 0,
			      "worker %d tile %dx%d: %d of %d pixels differ (first at %d: %d, expected %d)",
			      i, jb->wd, jb->ht, bad, np, first,
			      first >= 0 ? got[first] : 0,
			      first >= 0 ? exp[first] : 0);
			pixels += np;
			free(got);
			free(exp);
		}
	/* the images are not trivial */
	CHECK(nonzero > pixels / 10 && nonzero < pixels,
	      "%ld of %ld pixels non-zero", nonzero, pixels);
	/* an insane size makes mtile exit: its exit notify arrives */
	EQ(pvm_packf("%+ %lf %lf %lf %lf %d %d", PvmDataDefault, 0.0, 0.0, 1.0,
		     1.0, 0, 10),
	   0);
	EQ(pvm_send(w[0], TAG_WORK), 0);
	int b = t_recv(-1, TAG_EXIT, 20), who = 0;
	CHECK(b > 0, "no exit notify from mtile");
	pvm_upkint(&who, 1, 1);
	EQ(who, w[0]);
	for (i = 1; i < nw; i++)
		pvm_kill(w[i]);
	printf("%d workers, %ld pixels checked\n", nw, pixels);
	pvm_exit();
	return t_done("mtile");
}
