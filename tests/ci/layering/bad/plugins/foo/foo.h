// the plugin
