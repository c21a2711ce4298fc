// an algorithm of plugins/foo outside its folder
