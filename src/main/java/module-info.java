/** Postbox: outbox, durable jobs and background work for plain-JDBC applications. */
module dev.postbox {
  requires transitive java.sql;
  requires org.slf4j;
  requires static jdk.httpserver; // only the Console uses it

  exports dev.postbox;
}
