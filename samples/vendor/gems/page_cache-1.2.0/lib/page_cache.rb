# A page cache as a gem ships one (samples/shop.rb loads it from its vendor tree, as Bundler's
# `bundle config set path vendor/bundle` would): rendered pages by key, each with its ETag. It
# keeps every page it is given until told to forget it: what the keys are is the app's choice.
module PageCache
  Page = Struct.new(:key, :body, :etag)

  class Store
    def initialize
      @pages = {}
    end

    # The page cached under key, else the block's body cached as a new Page.
    def fetch(key)
      @pages[key] ||= begin
        body = yield
        Page.new(key, body, body.hash.to_s(16)) # leak: PageCache::Page
      end
    end

    def forget(key)
      @pages.delete(key)
    end
  end
end
