// A messy but valid file.
kernel   messy( x:global fp32[ N ]align( 16 ) )
   target(sm_80)   block(128)
{
      let i=(1+2)*3     // keep me


  // a blank line above is kept, two become one
  for k in 0..N/4 unroll(2)
  {
 st.global(x[k],i);
  }
}
