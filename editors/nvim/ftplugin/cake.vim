" ftplugin/cake.vim - Buffer settings for CAKE IR: // comments, 2-space indentation (cake fmt).
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1

setlocal commentstring=//\ %s comments=://
setlocal expandtab shiftwidth=2 softtabstop=2 tabstop=8
setlocal autoindent cindent cinoptions=(0,W2,m1,j1,J1 cinkeys-=0#
setlocal formatoptions-=t formatoptions+=croql

let b:undo_ftplugin = 'setlocal commentstring< comments< expandtab< shiftwidth< softtabstop< tabstop<'
      \ . ' autoindent< cindent< cinoptions< cinkeys< formatoptions<'
