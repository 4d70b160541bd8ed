// The streaming floor of a skinning frame: the bytes the per-vertex pass moves (rest position, rest
// normal, four weights and one set word in; position and normal out: 68 B a vertex) over N
// vertices with almost no arithmetic, on OMP_NUM_THREADS threads; prints the median and fastest
// of R passes. See BENCHMARKS.md, "Against a C streaming floor".
// gcc -O3 -march=native -fopenmp scripts/stream_floor.c -o /tmp/floor && OMP_NUM_THREADS=2 /tmp/floor 1000000 300
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <omp.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  long n=argc>1?atol(argv[1]):1000000; int reps=argc>2?atoi(argv[2]):60;
  float *p=aligned_alloc(64,n*12+64),*nr=aligned_alloc(64,n*12+64),*w=aligned_alloc(64,n*16+64);
  uint32_t *s=aligned_alloc(64,n*4+64); float *op=aligned_alloc(64,n*12+64),*on=aligned_alloc(64,n*12+64);
  #pragma omp parallel for schedule(static)
  for(long i=0;i<n;i++){for(int k=0;k<3;k++){p[3*i+k]=i*1e-6f+k;nr[3*i+k]=0.5f;op[3*i+k]=0;on[3*i+k]=0;}for(int k=0;k<4;k++)w[4*i+k]=0.25f;s[i]=i&7;}
  double *t=malloc(sizeof(double)*reps);
  for(int r=0;r<reps+2;r++){
    double t0=now();
    #pragma omp parallel for schedule(static,8192)
    for(long i=0;i<n;i++){
      float ws=w[4*i]+w[4*i+1]+w[4*i+2]+w[4*i+3]+(float)(s[i]&1);
      for(int k=0;k<3;k++){op[3*i+k]=p[3*i+k]*ws;on[3*i+k]=nr[3*i+k]*ws;}
    }
    double dt=now()-t0; if(r>=2)t[r-2]=dt;
  }
  qsort(t,reps,sizeof(double),cmp);
  printf("floor: %ld vertices, %d threads, median %.3f ms, min %.3f ms (68 B/vertex: %.1f GB/s at the median) check %f\n",n,omp_get_max_threads(),t[reps/2]*1e3,t[0]*1e3,n*68.0/t[reps/2]/1e9,op[3*(n/2)]+on[7]);
  return 0;
}
