// A plugin (check-layering fixture).
#pragma once
