import com.fasterxml.jackson.core.io.NumberOutput;
/** Digits of trace-like numbers: a three-digit-group loop, an int fast path, Jackson's NumberOutput, a leading-zeros count; thread CPU time. java -cp JACKSON_CORE_JAR benchmarks/DigitWriters.java */
public class DigitWriters {
  static final byte[] T = new byte[3000]; static final long[] P = new long[19]; static final int[] PI = new int[10];
  static { for (int i=0;i<1000;i++){T[3*i]=(byte)('0'+i/100);T[3*i+1]=(byte)('0'+i/10%10);T[3*i+2]=(byte)('0'+i%10);} P[0]=1; for(int i=1;i<19;i++)P[i]=P[i-1]*10; PI[0]=1; for(int i=1;i<10;i++)PI[i]=PI[i-1]*10;}
  static int loop(long value, byte[] b, int at) {
    int n = 1; while (n < P.length && value >= P[n]) n++;
    int end = at + n, p = end;
    while (value >= 1000) { long q = value / 1000; int t = (int)(value - q*1000)*3; b[p-3]=T[t]; b[p-2]=T[t+1]; b[p-1]=T[t+2]; p-=3; value=q; }
    int t=(int)value*3; b[p-1]=T[t+2]; if (value>=10){b[p-2]=T[t+1]; if(value>=100) b[p-3]=T[t];}
    return end;
  }
  static int fast(long value, byte[] b, int at) {
    if (value > Integer.MAX_VALUE) return loop(value, b, at);
    int v = (int) value;
    int n = 1; while (n < 10 && v >= PI[n]) n++;
    int end = at + n, p = end;
    while (v >= 1000) { int q = v / 1000; int t = (v - q*1000)*3; b[p-3]=T[t]; b[p-2]=T[t+1]; b[p-1]=T[t+2]; p-=3; v=q; }
    int t=v*3; b[p-1]=T[t+2]; if (v>=10){b[p-2]=T[t+1]; if(v>=100) b[p-3]=T[t];}
    return end;
  }
  static final byte[] GUESS = new byte[65]; static final long[] PU = new long[20];
  static { for (int b=0;b<=64;b++){ long v = b==0?0: (b>=64? Long.MIN_VALUE : 1L<<(b-1)); GUESS[b]=(byte)(b==0?1:Long.toUnsignedString(v).length()); }
           PU[0]=1; for(int i=1;i<20;i++) PU[i]=PU[i-1]*10; }
  static int nlz(long value, byte[] b, int at) {
    int g = GUESS[64 - Long.numberOfLeadingZeros(value)];
    int n = g + (int) ((PU[g] - 1 - value) >>> 63);
    int end = at + n, p = end;
    while (value >= 1000) { long q = value / 1000; int t = (int)(value - q*1000)*3; b[p-3]=T[t]; b[p-2]=T[t+1]; b[p-1]=T[t+2]; p-=3; value=q; }
    int t=(int)value*3; b[p-1]=T[t+2]; if (value>=10){b[p-2]=T[t+1]; if(value>=100) b[p-3]=T[t];}
    return end;
  }
  public static void main(String[] a) {
    for (long v : new long[]{0,1,9,10,99,100,999,1000,9999999999L,10000000000L,Long.MAX_VALUE, 999999999999999999L, 1000000000000000000L}) { byte[] x=new byte[40]; int e=nlz(v,x,0); if (!new String(x,0,e).equals(Long.toString(v))) throw new AssertionError(v+" "+new String(x,0,e)); }
    java.util.Random r = new java.util.Random(1); long[] vals = new long[1<<16];
    for (int i=0;i<vals.length;i++) { int k=i%4; vals[i]= k==0? 9_000_000L + r.nextInt(300_000_000) : k==1? r.nextInt(100_000) : k==2 ? r.nextInt(2000) : 400_000 + r.nextInt(30_000_000); }
    byte[] b = new byte[1<<20]; var mx = java.lang.management.ManagementFactory.getThreadMXBean();
    for (int round=0; round<5; round++) for (int m=0;m<4;m++) {
      long t0 = mx.getCurrentThreadCpuTime(); int at=0; long sink=0;
      for (int rep=0; rep<200; rep++) { at=0; for (long v: vals) { at = m==0? loop(v,b,at) : m==1? fast(v,b,at) : m==2 ? NumberOutput.outputLong(v,b,at) : nlz(v,b,at); b[at++]=','; } sink+=at; }
      long t1 = mx.getCurrentThreadCpuTime();
      System.out.printf("%s %.1f ns/number (%d)%n", m==0?"loop":m==1?"int-fast":m==2?"jackson":"nlz", (t1-t0)/(200.0*vals.length), sink);
    }
  }
}
