" syntax/cake.vim - CAKE IR syntax (docs/language.md sections 2 and 13).
" Keywords, memory spaces, element types, operations as family.op, numbers
" with byte units, strings and // comments.
if exists('b:current_syntax')
  finish
endif

syn keyword cakeStorage     kernel const let var ring role
syn keyword cakeConditional if else
syn keyword cakeRepeat      for in
syn keyword cakeStatement   return assume
syn keyword cakeBoolean     true false
syn keyword cakeConstant    inf

" Memory spaces and element types, unless used as an operation family (mbarrier.wait).
syn match cakeSpace   /\<\%(global\|shared\|reg\|tmem\|param\)\>\%(\s*\.\)\@!/
syn match cakeType    /\<\%(bf16\|fp16\|fp32\|tf32\|e4m3\|e5m2\|i8\|u8\|i32\|u32\|i64\|bool\|mbarrier\)\>\%(\s*\.\)\@!/

" BEGIN generated operations: from compiler/sema/Ops.def by scripts/gen_grammars.py; do not edit
" Operations: family.op (tma.load, wgmma.mma, math.cdiv, ...); ring operations.
syn match cakeOperation /\<\%(argmin\|atomic\|bar\|cluster\|cp\|cta\|elect\|fence\|ld\|math\|mbarrier\|mma\|reduce\|scan\|sched\|self\|st\|tcgen05\|tile\|tma\|topk\|warp\|wgmma\)\.\h\w*/
syn match cakeRingOp    /\.\zs\%(commit\|consume\|produce\|release\)\ze\s*(/
" END generated operations

" Clauses: stages(4), swizzle(128B), target(sm_90a), ...
syn match cakeClause /\<\%(align\|block\|cluster\|consumer\|count\|grid\|issue\|occupancy\|owner\|per\|producer\|regs\|stages\|step\|strides\|swizzle\|target\|trips\|unroll\|warpgroups\|warps\)\ze\s*(/

" Numbers: 1_024, 0.5, 1e-6, 0x80, 0b11, with an optional unit 128B / 64KiB / 1MiB.
syn match cakeNumber    /\<\d[0-9_]*\%(\.\d\+\)\=\%([eE][+-]\=\d\+\)\=\%(B\|KiB\|MiB\)\=\>/
syn match cakeNumber    /\<0x\x[0-9A-Fa-f_]*\>/
syn match cakeNumber    /\<0b[01][01_]*\>/
syn match cakeBadNumber /\<\d[0-9_]*\%(\.\d\+\)\=\zs\%(B\>\|KiB\>\|MiB\>\)\@![A-Za-z_]\w*/

syn match cakeOperator /\.\.\|->\|[-+*/%=!<>&|^~]=\=/
" Defined last: strings and comments win over operators at the same column.
syn region cakeString  start=/"/ skip=/\\./ end=/"\|$/ oneline contains=cakeEscape
syn match  cakeEscape  /\\./ contained
syn keyword cakeTodo   TODO FIXME XXX NOTE contained
syn match  cakeComment /\/\/.*$/ contains=cakeTodo,@Spell

hi def link cakeStorage     StorageClass
hi def link cakeConditional Conditional
hi def link cakeRepeat      Repeat
hi def link cakeStatement   Statement
hi def link cakeBoolean     Boolean
hi def link cakeConstant    Constant
hi def link cakeSpace       StorageClass
hi def link cakeType        Type
hi def link cakeOperation   Function
hi def link cakeRingOp      Function
hi def link cakeClause      PreProc
hi def link cakeNumber      Number
hi def link cakeBadNumber   Error
hi def link cakeString      String
hi def link cakeEscape      SpecialChar
hi def link cakeComment     Comment
hi def link cakeTodo        Todo
hi def link cakeOperator    Operator

let b:current_syntax = 'cake'
