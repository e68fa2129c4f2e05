" ftdetect/cake.vim - .cake files are CAKE IR (filetype cake).
autocmd BufRead,BufNewFile *.cake setfiletype cake
